package docs

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// CIRun is one clean-clone run of .ci/run (make test), as docs/ci-runs.json
// records it.
type CIRun struct {
	Date   string `json:"date"`
	Commit string `json:"commit"`
	// By says who ran it: the CI of a landing, or a session from a clean
	// clone before it stopped.
	By     string `json:"by"`
	Result string `json:"result"`
	// Seconds is the run's wall clock (0 when it was not taken).
	Seconds float64 `json:"seconds"`
	// Why a run failed, and what fixed its cause.
	Why string `json:"why,omitempty"`
}

// CIRunsFile is the record, relative to the repository's root.
const CIRunsFile = "docs/ci-runs.json"

// ReadCIRuns reads the record of clean-clone runs, oldest first.
func ReadCIRuns(path string) ([]CIRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rec struct {
		Runs []CIRun `json:"runs"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, r := range rec.Runs {
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil || r.Commit == "" || (r.Result != "passed" && r.Result != "failed") {
			return nil, fmt.Errorf("%s: run %d: give a date (YYYY-MM-DD), a commit and a result (passed or failed)", path, i+1)
		}
		if r.Result == "failed" && r.Why == "" {
			return nil, fmt.Errorf("%s: run %d (%s) failed: say why, and what fixed its cause", path, i+1, r.Commit)
		}
	}
	return rec.Runs, nil
}

// ciRunsHeading starts the page's section of clean-clone runs.
const ciRunsHeading = "\n## Clean-clone runs of make test\n"

// Streak is the number of green runs since the last red one.
func Streak(runs []CIRun) int {
	n := 0
	for i := len(runs) - 1; i >= 0 && runs[i].Result == "passed"; i-- {
		n++
	}
	return n
}

// CIRunsSection is the performance page's section of clean-clone runs.
func CIRunsSection(runs []CIRun) string {
	var w strings.Builder
	w.WriteString(ciRunsHeading)
	fmt.Fprintf(&w, "\nFrom %s (`make docs` renders it; a run is added to it by hand from what the run printed). "+
		"**%d consecutive green runs** since the last red one; the goal is ten in a row.\n\n| Date | Commit | Run by | Result | Wall clock | Why it failed |\n|---|---|---|---|---|---|\n",
		CIRunsFile, Streak(runs))
	for _, r := range runs {
		clock := "—"
		if r.Seconds > 0 {
			clock = (time.Duration(r.Seconds) * time.Second).String()
		}
		fmt.Fprintf(&w, "| %s | %s | %s | %s | %s | %s |\n", r.Date, r.Commit, r.By, r.Result, clock, r.Why)
	}
	return w.String()
}

// WithCIRuns is page with its section of clean-clone runs replaced by (or,
// without one, ended with) section: the rest of the page is make bench's.
func WithCIRuns(page []byte, section string) []byte {
	s := string(page)
	if i := strings.Index(s, ciRunsHeading); i >= 0 {
		end := len(s)
		if j := strings.Index(s[i+len(ciRunsHeading):], "\n## "); j >= 0 {
			end = i + len(ciRunsHeading) + j
		}
		return []byte(s[:i] + section + s[end:])
	}
	return []byte(strings.TrimRight(s, "\n") + "\n" + section)
}
