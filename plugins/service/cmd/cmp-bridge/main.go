// Command cmp-bridge presents a config management plugin served over TCP as
// a unix socket in Argo CD's plugin directory, so a released repo-server can
// use it like a sidecar:
//
//	cmp-bridge --socket /home/argocd/cmp-server/plugins/my-plugin-v1.0.sock --target my-plugin.argocd.svc:8080
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cmp-conformance/cmp-conformance/plugins/service/bridge"
)

func main() {
	var b bridge.Bridge
	flag.StringVar(&b.Socket, "socket", "", "unix socket to present, in the repo-server's plugin directory: <name>[-<version>].sock")
	flag.StringVar(&b.Target, "target", "", "host:port of the plugin service")
	flag.DurationVar(&b.DialTimeout, "dial-timeout", 0, "bound on connecting to the service (default 5s)")
	flag.Parse()
	if b.Socket == "" || b.Target == "" {
		fmt.Fprintln(os.Stderr, "cmp-bridge: --socket and --target are required")
		flag.Usage()
		os.Exit(2)
	}
	b.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := b.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "cmp-bridge:", err)
		os.Exit(1)
	}
}
