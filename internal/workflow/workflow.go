// Package workflow reads a GitHub Actions workflow and runs its jobs on this
// machine (cmd/cmp-workflow): the subset of the syntax this repository's
// workflows use, read strictly, so that a workflow this package cannot run
// as written is refused rather than run otherwise.
package workflow

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Workflow is a workflow file's jobs.
type Workflow struct {
	Name string         `json:"name"`
	Jobs map[string]Job `json:"jobs"`
}

// Job is one job of a workflow.
type Job struct {
	Needs    Needs             `json:"needs"`
	If       string            `json:"if"`
	Outputs  map[string]string `json:"outputs"`
	Strategy struct {
		Matrix map[string]json.RawMessage `json:"matrix"`
	} `json:"strategy"`
	Steps []Step `json:"steps"`
}

// Step is one step of a job: an action (Uses) or a script (Run).
type Step struct {
	ID   string            `json:"id"`
	Name string            `json:"name"`
	If   string            `json:"if"`
	Uses string            `json:"uses"`
	Run  string            `json:"run"`
	With map[string]string `json:"with"`
}

// Needs is a job's needs: one name or a list.
type Needs []string

func (n *Needs) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*n = Needs{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return fmt.Errorf("needs: give a job name or a list of them")
	}
	*n = many
	return nil
}

// Load reads a workflow file.
func Load(path string) (*Workflow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	wf := &Workflow{}
	// Keys this package does not know (runs-on, timeout-minutes, on) are
	// the runner's business; the ones it acts on are read strictly above.
	if err := yaml.Unmarshal(data, wf); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(wf.Jobs) == 0 {
		return nil, fmt.Errorf("%s has no jobs", path)
	}
	for name, j := range wf.Jobs {
		for _, n := range j.Needs {
			if _, ok := wf.Jobs[n]; !ok {
				return nil, fmt.Errorf("%s: job %s needs %s, which the workflow does not define", path, name, n)
			}
		}
	}
	if _, err := wf.Order(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return wf, nil
}

// Order is the jobs in an order their needs allow (by name among equals).
func (wf *Workflow) Order() ([]string, error) {
	var order []string
	done := map[string]bool{}
	for len(order) < len(wf.Jobs) {
		progressed := false
		for _, name := range slices.Sorted(maps.Keys(wf.Jobs)) {
			if done[name] {
				continue
			}
			if slices.ContainsFunc(wf.Jobs[name].Needs, func(n string) bool { return !done[n] }) {
				continue
			}
			done[name], progressed = true, true
			order = append(order, name)
		}
		if !progressed {
			return nil, fmt.Errorf("the jobs' needs form a cycle")
		}
	}
	return order, nil
}

// Context is what expressions read: the outputs of the jobs a job needs,
// its matrix cell, its steps' outputs, the runner.
type Context struct {
	Needs  map[string]map[string]string
	Matrix map[string]string
	Steps  map[string]map[string]string
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// Expand replaces each ${{ ... }} of s by its value; an expression this
// package cannot evaluate is an error.
func (c Context) Expand(s string) (string, error) {
	var err error
	out := expr.ReplaceAllStringFunc(s, func(m string) string {
		v, e := c.eval(expr.FindStringSubmatch(m)[1])
		if e != nil && err == nil {
			err = e
		}
		return v
	})
	return out, err
}

func (c Context) eval(e string) (string, error) {
	parts := strings.Split(e, ".")
	switch {
	case e == "runner.os":
		return "Linux", nil
	case len(parts) == 2 && parts[0] == "matrix":
		if v, ok := c.Matrix[parts[1]]; ok {
			return v, nil
		}
	case len(parts) == 4 && parts[0] == "needs" && parts[2] == "outputs":
		if v, ok := c.Needs[parts[1]][parts[3]]; ok {
			return v, nil
		}
	case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
		if v, ok := c.Steps[parts[1]][parts[3]]; ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("the expression ${{ %s }} cannot be evaluated here (matrix.X, needs.J.outputs.X, steps.S.outputs.X, runner.os and fromJSON of them are)", e)
}

// Cells expands a job's matrix: each combination of its values, in the
// order the workflow lists them; one empty cell without a matrix.
func (c Context) Cells(j Job) ([]map[string]string, error) {
	cells := []map[string]string{{}}
	for _, key := range slices.Sorted(maps.Keys(j.Strategy.Matrix)) {
		values, err := c.values(j.Strategy.Matrix[key])
		if err != nil {
			return nil, fmt.Errorf("matrix %s: %w", key, err)
		}
		var next []map[string]string
		for _, cell := range cells {
			for _, v := range values {
				n := maps.Clone(cell)
				n[key] = v
				next = append(next, n)
			}
		}
		cells = next
	}
	return cells, nil
}

var fromJSON = regexp.MustCompile(`^\$\{\{\s*fromJSON\((.*)\)\s*\}\}$`)

// values reads one matrix dimension: a list, or ${{ fromJSON(X) }} of a
// JSON list.
func (c Context) values(raw json.RawMessage) ([]string, error) {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("give a list of values or ${{ fromJSON(...) }}")
	}
	m := fromJSON.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("%q is neither a list nor ${{ fromJSON(...) }}", s)
	}
	v, err := c.eval(strings.TrimSpace(m[1]))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(v), &list); err != nil {
		return nil, fmt.Errorf("fromJSON(%s) = %q is not a JSON list of strings", m[1], v)
	}
	return list, nil
}
