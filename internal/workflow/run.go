package workflow

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
)

// Runner runs a workflow's jobs here.
type Runner struct {
	Workflow *Workflow
	// Repo is the repository whose HEAD every job checks out.
	Repo string
	// Dir holds the jobs' checkouts and homes, the caches and artifacts.
	Dir string
	// DryRun prints the plan and runs nothing.
	DryRun bool
	// ShareCache gives every job this machine's cache (XDG_CACHE_HOME as it
	// is) instead of its own.
	ShareCache bool
	Log        io.Writer

	// saves are the caches the running job restored, saved when it ends.
	saves []save
}

// save is a cache to store when its job ends.
type save struct{ from, to string }

// Run runs every job in an order its needs allow; a job whose needs failed
// is skipped unless its if is always(). It fails when a job failed.
func (r *Runner) Run(ctx context.Context) error {
	order, err := r.Workflow.Order()
	if err != nil {
		return err
	}
	outputs := map[string]map[string]string{}
	failed := map[string]bool{}
	var failures []string
	for _, name := range order {
		j := r.Workflow.Jobs[name]
		c := Context{Needs: outputs}
		switch {
		case j.If != "" && j.If != "always()":
			return fmt.Errorf("job %s: if %q: only always() is understood here", name, j.If)
		case j.If == "" && slices.ContainsFunc(j.Needs, func(n string) bool { return failed[n] }):
			fmt.Fprintf(r.Log, "job %s: skipped, a job it needs failed\n", name)
			failed[name] = true
			continue
		}
		cells, err := c.Cells(j)
		if err != nil {
			if r.DryRun {
				fmt.Fprintf(r.Log, "job %s: its matrix is known once the jobs it needs have run (%v)\n", name, err)
				continue
			}
			return fmt.Errorf("job %s: %w", name, err)
		}
		outputs[name] = map[string]string{}
		for _, cell := range cells {
			c.Matrix = cell
			label := name
			if len(cell) > 0 {
				var kv []string
				for _, k := range slices.Sorted(maps.Keys(cell)) {
					kv = append(kv, k+"="+cell[k])
				}
				label += " (" + strings.Join(kv, ", ") + ")"
			}
			out, err := r.runJob(ctx, label, j, c)
			if err != nil {
				failed[name] = true
				failures = append(failures, fmt.Sprintf("%s: %v", label, err))
				fmt.Fprintf(r.Log, "job %s: failed: %v\n", label, err)
			}
			maps.Copy(outputs[name], out)
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d job(s) failed: %s", len(failures), strings.Join(failures, "; "))
	}
	return nil
}

// runJob runs one job (one matrix cell) in a checkout of its own and
// returns its outputs.
func (r *Runner) runJob(ctx context.Context, label string, j Job, c Context) (map[string]string, error) {
	start := time.Now()
	fmt.Fprintf(r.Log, "job %s: started\n", label)
	if r.DryRun {
		for _, s := range j.Steps {
			what := s.Run
			if s.Uses != "" {
				what = "uses " + s.Uses + ": " + actionPlan(s.Uses)
			}
			fmt.Fprintf(r.Log, "  step %s: %s\n", cmp.Or(s.Name, s.ID, s.Uses, "run"), text.FirstLine(what))
		}
		return nil, nil
	}
	jobDir := filepath.Join(r.Dir, "jobs", sanitize(label))
	work, home := filepath.Join(jobDir, "work"), filepath.Join(jobDir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "HOME="+home, "CI=true", "GITHUB_ACTIONS=", "RUNNER_OS=Linux")
	cacheHome := filepath.Join(home, ".cache")
	if r.ShareCache {
		fmt.Fprintf(r.Log, "  this machine's cache is shared with the job (--share-cache)\n")
		if xdg := os.Getenv("XDG_CACHE_HOME"); xdg != "" {
			cacheHome = xdg
		} else if h, err := os.UserHomeDir(); err == nil {
			cacheHome = filepath.Join(h, ".cache")
		}
	}
	// Go's own caches stay this machine's: the workflow caches only the
	// harness's binaries (setup-go caches Go's).
	goEnv := []string{"XDG_CACHE_HOME=" + cacheHome}
	if gocache, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(gocache)), "\n")
		if len(lines) == 2 {
			goEnv = append(goEnv, "GOCACHE="+lines[0], "GOMODCACHE="+lines[1])
		}
	}
	env = append(env, goEnv...)
	c.Steps = map[string]map[string]string{}
	outputs := map[string]string{}
	var failed error
	for i, s := range j.Steps {
		name := cmp.Or(s.Name, s.ID, s.Uses, fmt.Sprintf("#%d", i+1))
		switch {
		case s.If != "" && s.If != "always()":
			return nil, fmt.Errorf("step %s: if %q: only always() is understood here", name, s.If)
		case failed != nil && s.If != "always()":
			fmt.Fprintf(r.Log, "  step %s: skipped, an earlier step failed\n", name)
			continue
		}
		var err error
		if s.Uses != "" {
			err = r.action(ctx, s, c, work, cacheHome)
		} else {
			var out map[string]string
			out, err = r.script(ctx, s, c, work, env, jobDir, i)
			if s.ID != "" {
				c.Steps[s.ID] = out
			}
		}
		if err != nil {
			fmt.Fprintf(r.Log, "  step %s: failed: %v\n", name, err)
			failed = errors.Join(failed, fmt.Errorf("step %s: %w", name, err))
		}
	}
	// actions/cache saves its folder when the job ends well and the key
	// had no cache yet.
	for _, sv := range r.saves {
		if _, err := os.Stat(sv.to); failed == nil && os.IsNotExist(err) {
			fmt.Fprintf(r.Log, "  saving the cache %s\n", filepath.Base(sv.to))
			if err := copyTree(ctx, sv.from, sv.to); err != nil {
				failed = errors.Join(failed, err)
			}
		}
	}
	r.saves = nil
	for k, v := range j.Outputs {
		val, err := c.Expand(v)
		if err != nil {
			return nil, err
		}
		outputs[k] = val
	}
	fmt.Fprintf(r.Log, "job %s: ended in %s\n", label, time.Since(start).Round(time.Second))
	return outputs, failed
}

// script runs a step's run script with bash in the job's checkout, and
// reads what it wrote to GITHUB_OUTPUT.
func (r *Runner) script(ctx context.Context, s Step, c Context, work string, env []string, jobDir string, i int) (map[string]string, error) {
	script, err := c.Expand(s.Run)
	if err != nil {
		return nil, err
	}
	output := filepath.Join(jobDir, fmt.Sprintf("output-%d", i))
	summary := filepath.Join(jobDir, "step-summary.md")
	for _, f := range []string{output, summary} {
		fh, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		fh.Close()
	}
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = work
	cmd.Env = append(env, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_WORKSPACE="+work)
	cmd.Stdout, cmd.Stderr = r.Log, r.Log
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	return readOutputs(output)
}

// readOutputs reads NAME=VALUE lines (the single-line form).
func readOutputs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out, sc.Err()
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '(' || r == ')' || r == ',' || r == '=' {
			return '_'
		}
		return r
	}, s)
}
