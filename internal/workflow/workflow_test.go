package workflow

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheMatrixWorkflow: the repository's release-gating workflow reads
// here: its jobs in their order, the cells' matrix from the plan's output.
func TestTheMatrixWorkflow(t *testing.T) {
	wf, err := Load("../../.github/workflows/matrix.yml")
	if err != nil {
		t.Fatal(err)
	}
	order, err := wf.Order()
	if err != nil || strings.Join(order, ",") != "plan,cell,merge" {
		t.Fatalf("order %v, %v", order, err)
	}
	c := Context{Needs: map[string]map[string]string{"plan": {"versions": `["v3.6.0","v3.6.1"]`}}}
	cells, err := c.Cells(wf.Jobs["cell"])
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 || cells[0]["version"] != "v3.6.0" || cells[1]["runtime"] != "embedded" {
		t.Errorf("cells %v", cells)
	}
	c.Matrix = cells[1]
	key, err := c.Expand(wf.Jobs["cell"].Steps[2].With["key"])
	if err != nil || key != "cmpc-Linux-v3.6.1" {
		t.Errorf("the cache key %q, %v", key, err)
	}
}

func TestExpressionsAndRefusals(t *testing.T) {
	c := Context{Matrix: map[string]string{"v": "1"}, Steps: map[string]map[string]string{"s": {"o": "x"}}}
	if got, err := c.Expand("a-${{ matrix.v }}-${{steps.s.outputs.o}}"); err != nil || got != "a-1-x" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	if _, err := c.Expand("${{ github.sha }}"); err == nil {
		t.Error("an expression this package cannot evaluate was expanded")
	}
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "wf.yml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := Load(write("jobs:\n  a:\n    needs: b\n    steps: []\n  b:\n    needs: a\n    steps: []\n")); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("a cycle: %v", err)
	}
	if _, err := Load(write("jobs:\n  a:\n    needs: missing\n")); err == nil {
		t.Error("a need of no job was accepted")
	}
	wf, err := Load(write("jobs:\n  a:\n    steps:\n    - if: failure()\n      run: echo hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	r := &Runner{Workflow: wf, Repo: dir, Dir: t.TempDir(), Log: &log}
	if err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "only always()") {
		t.Errorf("an if this package cannot evaluate: %v", err)
	}
}

// TestRunPassesOutputsAndArtifacts runs a small workflow for real: a plan
// job's output makes the next job's matrix, each cell uploads an artifact,
// and the last job downloads them all; a failing step fails its job.
func TestRunPassesOutputsAndArtifacts(t *testing.T) {
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := runGit(repo, args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "wf.yml")
	body := `jobs:
  plan:
    outputs:
      list: ${{ steps.p.outputs.list }}
    steps:
      - uses: actions/checkout@v4
      - id: p
        run: echo 'list=["a","b"]' >> "$GITHUB_OUTPUT"
  cell:
    needs: plan
    strategy:
      matrix:
        x: ${{ fromJSON(needs.plan.outputs.list) }}
    steps:
      - uses: actions/checkout@v4
      - run: mkdir out && echo "${{ matrix.x }}" > out/x
      - uses: actions/upload-artifact@v4
        with:
          name: cell-${{ matrix.x }}
          path: out
  merge:
    needs: cell
    steps:
      - uses: actions/checkout@v4
      - uses: actions/download-artifact@v4
        with:
          pattern: cell-*
          path: cells
      - run: test "$(cat cells/*/x | tr -d '\n')" = ab
      - run: "false"
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	wf, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	r := &Runner{Workflow: wf, Repo: repo, Dir: t.TempDir(), Log: &log}
	err = r.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "merge: step #4") || strings.Contains(err.Error(), "step #3") {
		t.Errorf("run: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "job cell (x=b): ended") {
		t.Errorf("the second cell did not run:\n%s", log.String())
	}
}

func runGit(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
