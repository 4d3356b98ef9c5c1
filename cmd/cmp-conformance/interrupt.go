package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptible is the context of a command that starts what it must stop
// again (a cluster, processes, containers, folders): Ctrl-C, SIGTERM, or its
// standard output or error going away (a pipe into head, a closed terminal)
// cancel it as an interruption, and its teardown runs. Without the last,
// Go's runtime ends the process at its next write there (SIGPIPE) and all
// of it stays behind. A broken pipe elsewhere (a plugin's, a connection
// cut) is an ordinary write error and no interruption: once SIGPIPE is
// asked for, every one comes here, so the standard streams are looked at
// to tell (outputGone). Notify, not Ignore: the programs this one starts
// (plugins, which are judged) get SIGPIPE's default back at exec.
func interruptible() (context.Context, context.CancelFunc) {
	sig, stopSig := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(sig)
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-pipes:
				if outputGone(1, 2) {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, func() {
		signal.Stop(pipes)
		cancel()
		stopSig()
	}
}
