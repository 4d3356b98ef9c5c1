// Command cmp-idle is the workload of the fixture applications on a cluster
// given to the run (the existing runtime): it does nothing until it is
// stopped, as the pause program does for them on kind. Built static, it is
// the only file of its image (FROM scratch).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "cmp-idle takes no arguments: it runs until SIGTERM or SIGINT")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
}
