// Command testbins runs a module's tests as `go test -count=1` does, with
// each package's test binary linked into a folder that outlives the run
// (make unit: this machine's cache), where Go relinks only the binaries
// whose sources, flags or toolchain changed.
//
// go test links every test binary again on every run: the harness's 46
// took 118 CPU seconds, three quarters of make unit, for binaries that had
// not changed. `go test -c -o DIR/` skips a binary whose file in DIR is up
// to date (its build ID), as `go build -o` does: 1.3 s for all 46. The
// tests themselves still run every time, each in its package's folder,
// with go test's own flags.
//
//	go run ./internal/testbins [-tags T] [-p N] DIR [packages]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cmp-conformance/cmp-conformance/internal/files"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run returns the exit code: 0 when every package passed, 1 when one
// failed or did not build, 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testbins", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tags := fs.String("tags", "", "build tags, as go test -tags")
	par := fs.Int("p", runtime.GOMAXPROCS(0), "test binaries run at once, as go test -p")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: testbins [-tags T] [-p N] DIR [packages]\n\nLinks each package's test binary into DIR (Go skips one that is up to date)\nand runs it in its package's folder, as go test -count=1 would.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 || *par < 1 {
		fs.Usage()
		return 2
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	pkgs := fs.Args()[1:]
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	// SIGINT reaches the test binaries from the terminal, as under go
	// test; here it only stops starting new ones, and the rest are waited
	// for.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	// One run at a time per folder: another checkout's link must not
	// replace a binary between this run's link and its start.
	unlock, err := files.Lock(dir + ".lock")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer unlock()
	tests, err := list(*tags, pkgs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	// Not bound to ctx: go gets a Ctrl-C from the terminal too, and ends
	// removing its work folder, which a kill would leave behind.
	link := exec.Command("go", "test", "-c", "-tags", *tags, "-o", dir+string(os.PathSeparator))
	link.Args = append(link.Args, pkgs...)
	// Its "no test files" lines are go test's; keep its errors only.
	var linkOut bytes.Buffer
	link.Stdout, link.Stderr = &linkOut, &linkOut
	start := time.Now()
	if err := link.Run(); err != nil {
		fmt.Fprintf(stderr, "%s\nlinking the test binaries: %v\n", dropNoTests(linkOut.String()), err)
		return 1
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "interrupted before the tests ran")
		return 1
	}
	fmt.Fprintf(stdout, "testbins: %d test binaries up to date in %s (%.1fs)\n", len(tests), dir, time.Since(start).Seconds())
	if failed := runAll(ctx, dir, tests, *par, stdout); failed > 0 || ctx.Err() != nil {
		fmt.Fprintf(stdout, "FAIL (%d of %d packages)\n", failed, len(tests))
		return 1
	}
	return 0
}

// pkg is a package with tests: its import path and folder.
type pkg struct{ path, dir string }

// binary is the file go test -c -o DIR/ writes for p.
func (p pkg) binary(dir string) string {
	return filepath.Join(dir, filepath.Base(p.path)+".test")
}

func list(tags string, pkgs []string) ([]pkg, error) {
	cmd := exec.Command("go", "list", "-tags", tags, "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}\t{{.Dir}}{{end}}")
	cmd.Args = append(cmd.Args, pkgs...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the packages with tests: %w\n%s", err, stderr.Bytes())
	}
	var tests []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, dir, ok := strings.Cut(line, "\t"); ok {
			tests = append(tests, pkg{path, dir})
		}
	}
	return tests, nil
}

// runAll runs the tests, par at a time, printing each package's result
// as go test does (its output only when it failed) and returning how many
// failed.
func runAll(ctx context.Context, dir string, tests []pkg, par int, stdout io.Writer) int {
	var mu sync.Mutex
	failed := 0
	queue := make(chan pkg)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range queue {
				ok, report := runOne(dir, p)
				mu.Lock()
				if !ok {
					failed++
				}
				io.WriteString(stdout, report)
				mu.Unlock()
			}
		}()
	}
	for _, p := range tests {
		if ctx.Err() != nil {
			break
		}
		queue <- p
	}
	close(queue)
	wg.Wait()
	return failed
}

// runOne runs p's binary with go test's flags for -count=1 and its
// default timeout. It sends the binary no signal: as under go test, a
// Ctrl-C reaches it from the terminal (its process group), and a second
// signal from here would cut short the clean-up a test does on the first.
func runOne(dir string, p pkg) (bool, string) {
	cmd := exec.Command(p.binary(dir), "-test.paniconexit0", "-test.timeout=10m0s", "-test.count=1")
	cmd.Dir = p.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := fmt.Sprintf("%.3fs", time.Since(start).Seconds())
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fmt.Fprintf(&out, "%v\n", err)
		}
		return false, fmt.Sprintf("%sFAIL\t%s\t%s\n", out.String(), p.path, took)
	}
	return true, fmt.Sprintf("ok  \t%s\t%s\n", p.path, took)
}

// dropNoTests removes go test -c's "[no test files]" lines from out.
func dropNoTests(out string) string {
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(line, "[no test files]") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
