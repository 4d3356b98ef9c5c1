// Command cmp-idle is the workload of the fixture applications on a cluster
// given to the run (the existing runtime): it does nothing until it is
// stopped, as the pause program does for them on kind. Built static, it is
// the only file of its image (FROM scratch).
//
// In the debug image (argocd.Installed.DebugImage) it also reads and
// removes a plugin's records for the checks: `cmp-idle read FILE` prints
// the node's time in nanoseconds on a line (" missing" after it when there
// is no such file), then the file; `cmp-idle remove FILE` removes it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// maxRecord is argocd.MaxScratchRecord, and "read" and "remove" are
// argocd.ReadArg and RemoveArg (this program imports nothing of the
// harness; main_test.go holds them together): a plugin is untrusted.
const maxRecord = 1 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		<-ctx.Done()
		return 0
	case len(args) == 2 && args[0] == "read":
		if err := read(args[1], stdout); err != nil {
			fmt.Fprintln(stderr, "cmp-idle read:", err)
			return 1
		}
		return 0
	case len(args) == 2 && args[0] == "remove":
		if err := os.Remove(args[1]); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(stderr, "cmp-idle remove:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintln(stderr, "usage: cmp-idle (runs until SIGTERM or SIGINT) | cmp-idle read FILE | cmp-idle remove FILE")
	return 2
}

// read prints the time, taken before the file is opened (its content is
// never older than the time), then at most maxRecord bytes of it. Only a
// regular file is read, never through a link: the plugin that wrote it is
// untrusted, and a link in its /tmp would point into this container.
func read(name string, w io.Writer) error {
	now := strconv.FormatInt(time.Now().UnixNano(), 10)
	info, err := os.Lstat(name)
	if errors.Is(err, os.ErrNotExist) {
		_, err = fmt.Fprintln(w, now+" missing")
		return err
	}
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): a record is one", name, info.Mode().Type())
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := fmt.Fprintln(w, now); err != nil {
		return err
	}
	_, err = io.Copy(w, io.LimitReader(f, maxRecord))
	return err
}
