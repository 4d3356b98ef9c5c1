// Command cmp-inventory is an example plugin in Go: it renders the YAML
// files of the application folder and adds a ConfigMap, "inventory", that
// lists each file with its SHA-256, so a cluster shows what it was made
// from.
//
// It has a flaw on purpose, the commonest one: the inventory records when
// it was rendered. Two generations of one revision then differ, and Argo CD
// shows the application OutOfSync after every hard refresh; certify reports
// it (PLUG-004). The fix is to record something the revision determines,
// ARGOCD_APP_REVISION, instead of the time (see examples/README.md).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	if err := render(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cmp-inventory:", err)
		os.Exit(1)
	}
}

func render(w *os.File) error {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		return err
	}
	sort.Strings(files)
	if len(files) == 0 {
		// An empty manifest list would make Argo CD prune everything.
		return fmt.Errorf("no *.yaml in the application folder")
	}
	var inventory strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "---\n%s\n", strings.TrimRight(string(data), "\n"))
		sum := sha256.Sum256(data)
		fmt.Fprintf(&inventory, "    %s: %s\n", f, hex.EncodeToString(sum[:]))
	}
	// The flaw: the time of rendering, new at every generation.
	_, err = fmt.Fprintf(w, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inventory\n  annotations:\n    example.com/rendered-at: %q\ndata:\n  files: |\n%s",
		time.Now().UTC().Format(time.RFC3339Nano), inventory.String())
	return err
}
