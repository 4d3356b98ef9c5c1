package bridge

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Main is the command line of a bridge program: flags, then Serve until
// SIGINT or SIGTERM. extra registers a program's own flags and returns a
// function that finishes the Bridge once flags are parsed (broken bridges
// install their Dial hook there); nil for none.
func Main(name, usage string, extra func(fs *flag.FlagSet) func(*Bridge) error) {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	var b Bridge
	fs.StringVar(&b.Socket, "socket", "", "unix socket to listen on: in the repo-server's plugin directory, <name>[-<version>].sock")
	fs.StringVar(&b.Listen, "listen", "", "TCP host:port to listen on instead of --socket (a service's network front)")
	fs.StringVar(&b.Target, "target", "", "host:port of the plugin service")
	fs.StringVar(&b.TargetSocket, "target-socket", "", "unix socket to forward to instead of --target (argocd-cmp-server's)")
	fs.DurationVar(&b.DialTimeout, "dial-timeout", 0, "bound on connecting to the target (default 5s)")
	probe := fs.Bool("probe", false, "connect to the target once and exit 0 if it answers, 1 if not: a readiness probe for a pod whose image has no shell")
	var finish func(*Bridge) error
	if extra != nil {
		finish = extra(fs)
	}
	_ = fs.Parse(os.Args[1:])
	if *probe {
		if err := b.Probe(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		return
	}
	if (b.Socket == "") == (b.Listen == "") || (b.Target == "") == (b.TargetSocket == "") {
		fmt.Fprintf(os.Stderr, "%s: give one of --socket and --listen, and one of --target and --target-socket\n\n", name)
		fs.Usage()
		os.Exit(2)
	}
	if finish != nil {
		if err := finish(&b); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(2)
		}
	}
	b.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := b.Serve(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
