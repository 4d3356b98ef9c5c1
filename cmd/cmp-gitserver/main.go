// Command cmp-gitserver serves a folder of bare git repositories over smart
// HTTP (git http-backend), as the harness's own git server does on the
// host: the kind runtime runs it in a container beside the cluster, so that
// Argo CD's pods clone what the harness commits. Built static, it runs on
// any image that has git.
//
// With -identity it also opens the credentialed front doors (HTTPS with
// basic auth, SSH with one client key) with the identity the harness wrote
// in that folder (gitserver.Identity.WriteDir), so that the cluster's pods
// clone through them as through a git host that wants credentials.
//
// With -relay it serves no repositories: it carries each client of -addr
// (and of the HTTPS and SSH doors, -https-addr and -ssh-addr) to the
// harness, which connects to -control through a port-forward and serves
// them from its own git server (package tunnel). The existing runtime runs
// it so in a pod, since a cluster's pods cannot dial the host.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/gitserver"
	"github.com/cmp-conformance/cmp-conformance/fixtures/tunnel"
)

func main() {
	dir := flag.String("dir", "/repos", "folder of bare repositories (<name>.git)")
	addr := flag.String("addr", ":8080", "listen address")
	relay := flag.Bool("relay", false, "serve no repositories: carry the clients of -addr to the harness connected on -control")
	control := flag.String("control", ":8081", "with -relay: where the harness connects")
	identity := flag.String("identity", "", "folder of the credentialed doors' identity (written by the harness); with it, serve HTTPS on -https-addr and SSH on -ssh-addr too")
	doors := gitserver.Doors{}
	flag.StringVar(&doors.HTTPS, "https-addr", ":8443", "with -identity: the HTTPS (basic auth) listen address; with -relay: the HTTPS door relayed to the host")
	flag.StringVar(&doors.SSH, "ssh-addr", ":2222", "with -identity: the SSH listen address; with -relay: the SSH door relayed to the host")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "cmp-gitserver takes no arguments; see -help")
		os.Exit(2)
	}
	if *relay && *identity != "" {
		fmt.Fprintln(os.Stderr, "cmp-gitserver: -identity serves repositories, -relay none: give one")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *dir, *addr, *relay, *control, *identity, doors); err != nil {
		fmt.Fprintln(os.Stderr, "cmp-gitserver:", err)
		os.Exit(1)
	}
}

func serve(ctx context.Context, dir, addr string, relay bool, control, identity string, doors gitserver.Doors) error {
	if relay {
		var lc net.ListenConfig
		// The doors in tunnel's order: plain HTTP, HTTPS, SSH.
		var listeners []net.Listener
		for _, a := range []string{addr, doors.HTTPS, doors.SSH} {
			l, err := lc.Listen(ctx, "tcp", a)
			if err != nil {
				for _, l := range listeners {
					l.Close()
				}
				return err
			}
			listeners = append(listeners, l)
		}
		ctl, err := lc.Listen(ctx, "tcp", control)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "cmp-gitserver: relaying clients of %s, %s and %s to the host connected on %s\n", listeners[0].Addr(), listeners[1].Addr(), listeners[2].Addr(), ctl.Addr())
		// A clone waits for a host that reconnects, not longer than git's
		// own patience.
		return tunnel.Relay(ctx, listeners, ctl, 30*time.Second, log.New(os.Stderr, "cmp-gitserver: ", log.LstdFlags|log.Lmsgprefix))
	}
	s, err := gitserver.Start(ctx, gitserver.Options{Dir: dir, Addr: addr, Log: os.Stderr})
	if err != nil {
		return err
	}
	if identity != "" {
		id, err := gitserver.ReadIdentity(identity)
		if err != nil {
			return errors.Join(err, s.Close())
		}
		if err := s.ServeSecureOn(ctx, id, doors); err != nil {
			return errors.Join(err, s.Close())
		}
		fmt.Fprintf(os.Stderr, "cmp-gitserver: serving %s over HTTPS on %s and SSH on %s too\n", dir, doors.HTTPS, doors.SSH)
	}
	fmt.Fprintf(os.Stderr, "cmp-gitserver: serving %s on %s\n", dir, s.Addr())
	<-ctx.Done()
	return s.Close()
}
