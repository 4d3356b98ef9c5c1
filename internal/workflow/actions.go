package workflow

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// actionPlan says what a known action does here, and that any other is
// not run.
func actionPlan(uses string) string {
	name, _, _ := strings.Cut(uses, "@")
	switch name {
	case "actions/checkout":
		return "a clone of this repository at HEAD"
	case "actions/setup-go":
		return "not run: this machine's Go is used"
	case "actions/cache":
		return "restored from, and saved to, a folder of this run keyed as the workflow keys it"
	case "actions/upload-artifact":
		return "copied into the run's artifacts folder under its name"
	case "actions/download-artifact":
		return "copied from the run's artifacts folder"
	}
	return "not run: unknown here"
}

// action does what a known action does, here.
func (r *Runner) action(ctx context.Context, s Step, c Context, work, cacheHome string) error {
	name, _, _ := strings.Cut(s.Uses, "@")
	with := map[string]string{}
	for k, v := range s.With {
		val, err := c.Expand(v)
		if err != nil {
			return err
		}
		with[k] = val
	}
	fmt.Fprintf(r.Log, "  step %s: %s\n", s.Uses, actionPlan(s.Uses))
	artifacts := filepath.Join(r.Dir, "artifacts")
	switch name {
	case "actions/checkout":
		out, err := exec.CommandContext(ctx, "git", "clone", "--quiet", r.Repo, work).CombinedOutput()
		if err != nil {
			return fmt.Errorf("cloning %s: %v: %s", r.Repo, err, out)
		}
	case "actions/cache":
		if r.ShareCache {
			fmt.Fprintln(r.Log, "    the job uses this machine's cache: nothing to restore")
			return nil
		}
		if !strings.HasPrefix(with["path"], "~/.cache/") {
			return fmt.Errorf("cache path %q: only a folder under ~/.cache is understood here", with["path"])
		}
		stored := filepath.Join(r.Dir, "caches", sanitize(with["key"]))
		target := filepath.Join(cacheHome, strings.TrimPrefix(with["path"], "~/.cache/"))
		if _, err := os.Stat(stored); err == nil {
			fmt.Fprintf(r.Log, "    restored %s from key %s\n", with["path"], with["key"])
			if err := copyTree(ctx, stored, target); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(r.Log, "    no cache for key %s: the job starts cold\n", with["key"])
		}
		// actions/cache saves when the job ends; here, at once on the
		// folder that the job will fill, by a link the save copies.
		r.saves = append(r.saves, save{from: target, to: stored})
	case "actions/upload-artifact":
		src := filepath.Join(work, with["path"])
		if err := copyTree(ctx, src, filepath.Join(artifacts, with["name"])); err != nil {
			return err
		}
	case "actions/download-artifact":
		matches, err := filepath.Glob(filepath.Join(artifacts, cmp.Or(with["pattern"], with["name"])))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if err := copyTree(ctx, m, filepath.Join(work, with["path"], filepath.Base(m))); err != nil {
				return err
			}
		}
	default:
		// Listed as not run (setup-go: this machine's Go; anything else).
	}
	return nil
}

// copyTree copies a folder with cp -a (links and modes kept).
func copyTree(ctx context.Context, from, to string) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "cp", "-a", from+"/.", to).CombinedOutput()
	if err != nil {
		return fmt.Errorf("copying %s to %s: %v: %s", from, to, err, out)
	}
	return nil
}
