// Command cmp-gitserver serves a folder of bare git repositories over smart
// HTTP (git http-backend), as the harness's own git server does on the
// host: the kind runtime runs it in a container beside the cluster, so that
// Argo CD's pods clone what the harness commits. Built static, it runs on
// any image that has git.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cmp-conformance/cmp-conformance/fixtures/gitserver"
)

func main() {
	dir := flag.String("dir", "/repos", "folder of bare repositories (<name>.git)")
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "cmp-gitserver takes no arguments; see -help")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := gitserver.Start(ctx, gitserver.Options{Dir: *dir, Addr: *addr, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmp-gitserver:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "cmp-gitserver: serving %s on %s\n", *dir, s.Addr())
	<-ctx.Done()
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "cmp-gitserver:", err)
		os.Exit(1)
	}
}
