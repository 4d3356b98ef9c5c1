// Package bridge lets a released Argo CD use a config management plugin
// served over the network (proposal: plugins as services, shared/seeds 004):
// it presents a unix socket in the repo-server's plugin directory, where
// Argo CD looks for sidecars, and forwards every connection byte for byte to
// the plugin's TCP address. The CMP gRPC protocol passes through unchanged.
//
// The same forwarder, turned around (listen on TCP, dial a unix socket), is
// the network front of a plugin service whose server speaks on a unix socket,
// as argocd-cmp-server does.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// Bridge forwards connections from Socket (or Listen) to Target (or
// TargetSocket).
type Bridge struct {
	// Socket is the unix socket to listen on, e.g. <plugins dir>/my-plugin-v1.0.sock.
	Socket string
	// Listen is a TCP host:port to listen on instead of Socket.
	Listen string
	// Target is the plugin service's host:port.
	Target string
	// TargetSocket is a unix socket to forward to instead of Target.
	TargetSocket string
	// Dial, when set, replaces dialing the target (for tests and for the
	// broken bridges of the self-test).
	Dial func(ctx context.Context) (net.Conn, error)
	// DialTimeout bounds connecting to Target (default 5s): when the service
	// is down, the repo-server gets a closed connection at once, not a hang.
	DialTimeout time.Duration
	// Log receives one line per failed connection; nil discards.
	Log io.Writer
}

// Serve listens until ctx ends, then closes every connection and removes
// the socket. A stale socket file from an earlier run is replaced.
func (b *Bridge) Serve(ctx context.Context) error {
	if b.DialTimeout == 0 {
		b.DialTimeout = 5 * time.Second
	}
	ln, err := b.listen()
	if err != nil {
		return err
	}
	if b.Socket != "" {
		defer os.Remove(b.Socket)
	}
	var wg sync.WaitGroup
	conns := &connSet{m: map[net.Conn]struct{}{}}
	go func() {
		<-ctx.Done()
		ln.Close()
		conns.closeAll()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			wg.Wait()
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accepting on %s: %w", b.from(), err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.forward(ctx, c, conns)
		}()
	}
}

// forward copies both ways until both directions end. Each direction ends
// with a half-close so that the end of a gRPC stream reaches the far side.
func (b *Bridge) forward(ctx context.Context, client net.Conn, conns *connSet) {
	conns.add(client)
	defer conns.remove(client)
	target, err := b.dial(ctx)
	if err != nil {
		b.logf("bridge %s -> %s: %v", b.from(), b.to(), err)
		client.Close()
		return
	}
	conns.add(target)
	defer conns.remove(target)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pipe(target, client) }()
	go func() { defer wg.Done(); pipe(client, target) }()
	wg.Wait()
	client.Close()
	target.Close()
}

// listen opens Socket (replacing a stale socket file from an earlier run)
// or Listen.
func (b *Bridge) listen() (net.Listener, error) {
	if (b.Socket == "") == (b.Listen == "") {
		return nil, errors.New("bridge: exactly one of a socket and a TCP listen address is needed")
	}
	if (b.Target == "") == (b.TargetSocket == "") && b.Dial == nil {
		return nil, errors.New("bridge: exactly one of a TCP target and a target socket is needed")
	}
	if b.Listen != "" {
		ln, err := net.Listen("tcp", b.Listen)
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", b.Listen, err)
		}
		return ln, nil
	}
	if err := os.Remove(b.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing stale socket %s: %w", b.Socket, err)
	}
	ln, err := net.Listen("unix", b.Socket)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", b.Socket, err)
	}
	return ln, nil
}

func (b *Bridge) dial(ctx context.Context) (net.Conn, error) {
	if b.Dial != nil {
		return b.Dial(ctx)
	}
	d := net.Dialer{Timeout: b.DialTimeout}
	if b.TargetSocket != "" {
		return d.DialContext(ctx, "unix", b.TargetSocket)
	}
	return d.DialContext(ctx, "tcp", b.Target)
}

// DialTarget dials the configured target, for a Dial hook that wraps it.
func (b *Bridge) DialTarget(ctx context.Context) (net.Conn, error) {
	d := *b
	d.Dial = nil
	if d.DialTimeout == 0 {
		d.DialTimeout = 5 * time.Second
	}
	return d.dial(ctx)
}

// Probe connects to the target once and hangs up: the target accepts
// connections. A pod's readiness is its plugin server's socket answering,
// not only its network front listening.
func (b *Bridge) Probe(ctx context.Context) error {
	if (b.Target == "") == (b.TargetSocket == "") {
		return errors.New("probe: give one of --target and --target-socket")
	}
	c, err := b.DialTarget(ctx)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	return c.Close()
}

func (b *Bridge) from() string { return b.Socket + b.Listen }
func (b *Bridge) to() string   { return b.Target + b.TargetSocket }

func pipe(dst, src net.Conn) {
	if _, err := io.Copy(dst, src); err != nil {
		// The peer is gone: end both directions rather than leave the other
		// side waiting on a stream that will never finish.
		dst.Close()
		src.Close()
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

func (b *Bridge) logf(format string, args ...any) {
	if b.Log != nil {
		fmt.Fprintf(b.Log, format+"\n", args...)
	}
}

type connSet struct {
	mu sync.Mutex
	m  map[net.Conn]struct{}
}

func (s *connSet) add(c net.Conn) {
	s.mu.Lock()
	s.m[c] = struct{}{}
	s.mu.Unlock()
}

func (s *connSet) remove(c net.Conn) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
	c.Close()
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.m {
		c.Close()
	}
}
