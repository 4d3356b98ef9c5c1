package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Timing is how long one `cmp-conformance render` took, as `--timings`
// records it (a JSON line each) and `make bench` reads it.
type Timing struct {
	At time.Time `json:"at"`
	// Plugin is "image" (a sidecar container) or "folder" (host processes).
	Plugin string `json:"plugin"`
	ArgoCD string `json:"argocd"`
	// ReadySeconds: the binaries' plan, the repo-server and the plugin up.
	ReadySeconds float64 `json:"readySeconds"`
	// RenderSeconds: the sample committed and its manifests generated.
	RenderSeconds float64 `json:"renderSeconds"`
	// TotalSeconds: from the command's start to the end of its teardown
	// (the process's own start, a few tens of milliseconds, aside).
	TotalSeconds float64 `json:"totalSeconds"`
}

// AppendTiming adds t to file as a JSON line.
func AppendTiming(file string, t Timing) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadTimings reads a file AppendTiming wrote.
func ReadTimings(file string) ([]Timing, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Timing
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var t Timing
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}
