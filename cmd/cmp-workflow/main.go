// Command cmp-workflow runs the jobs of a GitHub Actions workflow of this
// repository on this machine, as the runner would: each job, and each cell
// of a job's matrix, as its own process in its own checkout, with its own
// cache and output folder, the jobs in the order their needs give, outputs
// and artifacts passed between them. It knows the few actions the
// workflow uses: checkout is a clone of this repository at HEAD, cache
// restores and saves a folder of this machine keyed as the workflow keys
// it, upload-artifact and download-artifact copy to and from a folder of
// artifacts. Anything else is listed as not run, never faked. It exists to
// prove .github/workflows/matrix.yml here, where no runner is.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/cmp-conformance/cmp-conformance/internal/workflow"
)

func main() {
	var dir, repo string
	var dryRun, shareCache bool
	flag.StringVar(&dir, "dir", "", "where the jobs' checkouts, caches and artifacts go (a new temporary folder when empty)")
	flag.StringVar(&repo, "repo", ".", "the repository whose HEAD the jobs check out")
	flag.BoolVar(&dryRun, "dry-run", false, "print the jobs, their matrix cells and steps, and run nothing")
	flag.BoolVar(&shareCache, "share-cache", false, "give every job this machine's cache instead of its own (faster; the run says so)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: cmp-workflow [flags] WORKFLOW.yml\n\nRuns a workflow's jobs here as GitHub's runner would (see the package comment).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	wf, err := workflow.Load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmp-workflow:", err)
		os.Exit(2)
	}
	if dir == "" && !dryRun {
		if dir, err = os.MkdirTemp("", "cmp-workflow-"); err != nil {
			fmt.Fprintln(os.Stderr, "cmp-workflow:", err)
			os.Exit(1)
		}
	}
	repoAbs, err := filepath.Abs(repo)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmp-workflow:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &workflow.Runner{Workflow: wf, Repo: repoAbs, Dir: dir, DryRun: dryRun, ShareCache: shareCache, Log: os.Stderr}
	if err := r.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "cmp-workflow:", err)
		os.Exit(1)
	}
}
