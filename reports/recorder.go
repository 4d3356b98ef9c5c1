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
// run add to the same record; ReadAll keeps the last record per ID and hop
// (or per check, witness and hop for self-test results).
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
	return r.append(line, "result "+res.ID)
}

// selfTestLine is how a self-test result is stored: wrapped in an object
// whose only key is "selfTest", which no plain result line has, so files
// written before self-tests existed still read the same.
type selfTestLine struct {
	SelfTest *v1alpha1.SelfTestResult `json:"selfTest"`
}

// RecordSelfTest appends one self-test result to the same file as Record,
// with the same guarantees.
func (r *Recorder) RecordSelfTest(st v1alpha1.SelfTestResult) error {
	what := fmt.Sprintf("self-test %s vs %s", st.CheckID, st.Witness)
	line, err := json.Marshal(selfTestLine{SelfTest: &st})
	if err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	return r.append(line, what)
}

func (r *Recorder) append(line []byte, what string) error {
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	// One Write call per line: with O_APPEND the kernel places it at the end
	// as a unit, so concurrent records never interleave.
	if _, err := r.f.Write(line); err != nil {
		return fmt.Errorf("record %s: %w", what, err)
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", what, err)
	}
	return nil
}

// Close closes the underlying file. Records after Close fail.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}

// ReadResults reads the results a Recorder wrote to path, leaving out
// self-test results; see ReadAll.
func ReadResults(path string) ([]v1alpha1.Result, error) {
	results, _, err := ReadAll(path)
	return results, err
}

// ReadAll reads the results and self-test results a Recorder wrote to path.
// A missing file means no check finished and yields none. An unparsable final
// line is the remains of a crash mid-write and is ignored; an unparsable line
// elsewhere is real corruption and is an error. When a result (ID, hop), or a
// self-test (check, witness, hop), appears more than once (a retried check)
// the last record wins, in the first one's position. The hop is part of the
// key because an upgrade run records one result per check per hop, and each
// of them must be kept.
func ReadAll(path string) ([]v1alpha1.Result, []v1alpha1.SelfTestResult, error) {
	results := []v1alpha1.Result{}
	selfTests := []v1alpha1.SelfTestResult{}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return results, selfTests, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read results: %w", err)
	}
	lines := bytes.Split(data, []byte("\n"))
	type resultKey struct{ id, hop string }
	index := map[resultKey]int{}
	type selfKey struct{ check, witness, hop string }
	selfIndex := map[selfKey]int{}
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		res, st, err := parseLine(line)
		if err != nil {
			if i == len(lines)-1 {
				break // no trailing newline: the write was cut short
			}
			return nil, nil, fmt.Errorf("%s:%d: malformed result: %w", path, i+1, err)
		}
		if st != nil {
			key := selfKey{st.CheckID, st.Witness, st.Hop}
			if j, ok := selfIndex[key]; ok {
				selfTests[j] = *st
				continue
			}
			selfIndex[key] = len(selfTests)
			selfTests = append(selfTests, *st)
			continue
		}
		key := resultKey{res.ID, res.Hop}
		if j, ok := index[key]; ok {
			results[j] = res
			continue
		}
		index[key] = len(results)
		results = append(results, res)
	}
	return results, selfTests, nil
}

// parseLine decodes one line: a self-test result (st != nil) when the line is
// a selfTestLine, a plain result otherwise.
func parseLine(line []byte) (res v1alpha1.Result, st *v1alpha1.SelfTestResult, err error) {
	var probe struct {
		SelfTest json.RawMessage `json:"selfTest"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return res, nil, err
	}
	if probe.SelfTest != nil {
		if string(probe.SelfTest) == "null" {
			return res, nil, errors.New(`"selfTest" is null`)
		}
		st = &v1alpha1.SelfTestResult{}
		if err := json.Unmarshal(probe.SelfTest, st); err != nil {
			return res, nil, err
		}
		return res, st, nil
	}
	err = json.Unmarshal(line, &res)
	return res, nil, err
}
