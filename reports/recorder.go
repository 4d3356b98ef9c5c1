// Package reports records check results as they finish and writes the final
// conformance report in the formats people and CI systems read.
package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// Recorder appends each result to a JSON-lines file the moment its check
// finishes, so a run that is killed part-way still leaves a record of every
// check that completed.
type Recorder struct {
	mu sync.Mutex
	f  *os.File
}

// OpenRecorder opens path for appending, creating it and its parent
// directories as needed. Appending (not truncating) lets a resumed or retried
// run add to the same record; ReadResults keeps the last result per ID.
func OpenRecorder(path string) (*Recorder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create results directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results file: %w", err)
	}
	if err := dropTornTail(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("repair results file %s: %w", path, err)
	}
	return &Recorder{f: f}, nil
}

// dropTornTail truncates a partial last line left by a crash mid-write.
// Without this, the next record would be glued onto the fragment and both
// would be lost as one malformed line in the middle of the file.
func dropTornTail(f *os.File) error {
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return err
	}
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return nil
	}
	return f.Truncate(int64(bytes.LastIndexByte(data, '\n') + 1))
}

// Record appends one result as a JSON line and fsyncs it, so the result
// survives the process being killed right after. It is safe for concurrent use.
func (r *Recorder) Record(res v1alpha1.Result) error {
	line, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode result %s: %w", res.ID, err)
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	// One Write call per line: with O_APPEND the kernel places it at the end
	// as a unit, so concurrent records never interleave.
	if _, err := r.f.Write(line); err != nil {
		return fmt.Errorf("record result %s: %w", res.ID, err)
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("sync result %s: %w", res.ID, err)
	}
	return nil
}

// Close closes the underlying file. Records after Close fail.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}

// ReadResults reads the results a Recorder wrote to path. A missing file
// means no check finished and yields no results. An unparsable final line is
// the remains of a crash mid-write and is ignored; an unparsable line
// elsewhere is real corruption and is an error. When an ID appears more than
// once (a retried check) the last result wins, in the first one's position.
func ReadResults(path string) ([]v1alpha1.Result, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []v1alpha1.Result{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	lines := bytes.Split(data, []byte("\n"))
	results := []v1alpha1.Result{}
	index := map[string]int{}
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var res v1alpha1.Result
		if err := json.Unmarshal(line, &res); err != nil {
			if i == len(lines)-1 {
				break // no trailing newline: the write was cut short
			}
			return nil, fmt.Errorf("%s:%d: malformed result: %w", path, i+1, err)
		}
		if j, ok := index[res.ID]; ok {
			results[j] = res
			continue
		}
		index[res.ID] = len(results)
		results = append(results, res)
	}
	return results, nil
}
