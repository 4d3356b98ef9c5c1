package bridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// start runs a bridge to target and waits until its socket accepts.
func start(t *testing.T, target string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "plugin.sock")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	b := &Bridge{Socket: sock, Target: target, DialTimeout: time.Second}
	go func() { done <- b.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket %s left behind", sock)
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatalf("bridge socket never accepted: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serveTCP accepts on a free port and hands each connection to handle.
func serveTCP(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return ln.Addr().String()
}

func echo(c net.Conn) {
	defer c.Close()
	io.Copy(c, c)
	c.(*net.TCPConn).CloseWrite()
}

func TestLargeStreamBothWaysAndHalfClose(t *testing.T) {
	sock := start(t, serveTCP(t, echo))
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	payload := make([]byte, 32<<20)
	rand.Read(payload)
	go func() {
		c.Write(payload)
		// The end of the request stream must reach the plugin (half-close).
		c.(*net.UnixConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(got) != sha256.Sum256(payload) {
		t.Fatalf("stream changed on the way: %d bytes back of %d", len(got), len(payload))
	}
}

func TestSlowPeerLosesNothing(t *testing.T) {
	received := make(chan []byte, 1)
	sock := start(t, serveTCP(t, func(c net.Conn) {
		defer c.Close()
		var all bytes.Buffer
		buf := make([]byte, 1024)
		for {
			n, err := c.Read(buf)
			all.Write(buf[:n])
			if err != nil {
				if all.Len() > 0 { // not start's readiness probe
					received <- all.Bytes()
				}
				return
			}
			time.Sleep(50 * time.Microsecond) // a slow plugin: the sender is held back, not dropped
		}
	}))
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 4<<20)
	rand.Read(payload)
	if _, err := c.Write(payload); err != nil {
		t.Fatal(err)
	}
	c.(*net.UnixConn).CloseWrite()
	select {
	case got := <-received:
		if !bytes.Equal(got, payload) {
			t.Fatalf("slow peer got %d bytes, want %d", len(got), len(payload))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("slow peer never received the whole stream")
	}
	c.Close()
}

func TestConnectionLossEndsTheStreamAndTheBridgeGoesOn(t *testing.T) {
	sock := start(t, serveTCP(t, func(c net.Conn) {
		io.CopyN(io.Discard, c, 1<<20)
		c.(*net.TCPConn).SetLinger(0)
		c.Close() // the plugin dies mid-stream
	}))
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Write(make([]byte, 8<<20))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(c); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the client was left waiting after the plugin died")
	}
	// A new connection still gets through.
	c2, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("the bridge stopped serving after a lost connection: %v", err)
	}
	c2.Close()
}

func TestServiceDownThenUp(t *testing.T) {
	// Reserve an address, then free it: nothing listens there.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	sock := start(t, addr)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("with the service down the client must be closed at once, not left hanging")
	}
	c.Close()
	// The service comes back on the same address: the next connection works.
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("address %s taken meanwhile: %v", addr, err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			echo(c)
		}
	}()
	c, err = net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("ping"))
	c.(*net.UnixConn).CloseWrite()
	if got, _ := io.ReadAll(c); string(got) != "ping" {
		t.Fatalf("after the service came back: %q", got)
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "plugin.sock")
	os.WriteFile(sock, []byte("stale"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Bridge{Socket: sock, Target: "127.0.0.1:1"}).Serve(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stale socket file was not replaced")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The service side: TCP in, unix socket out (argocd-cmp-server's), chained
// with the repo-server side, carries a large stream both ways intact.
func TestNetworkFrontChainedWithBridge(t *testing.T) {
	dir := t.TempDir()
	serverSock := filepath.Join(dir, "server.sock")
	ln, err := net.Listen("unix", serverSock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
				c.(*net.UnixConn).CloseWrite()
			}()
		}
	}()
	port, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := port.Addr().String()
	port.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Bridge{Listen: addr, TargetSocket: serverSock}).Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("front: %v", err)
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("front never accepted: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	sock := start(t, addr)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	payload := make([]byte, 8<<20)
	rand.Read(payload)
	go func() {
		c.Write(payload)
		c.(*net.UnixConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("stream changed through front and bridge: %d bytes back of %d", len(got), len(payload))
	}
}

func TestBadAddressesAreRefused(t *testing.T) {
	for _, b := range []*Bridge{{}, {Socket: "a.sock", Listen: "127.0.0.1:0", Target: "x:1"}, {Socket: "a.sock"},
		{Socket: "a.sock", Target: "x:1", TargetSocket: "b.sock"}} {
		if err := b.Serve(context.Background()); err == nil {
			t.Errorf("%+v: served", b)
		}
	}
}

func TestProbeAnswersOnlyForASocketThatAccepts(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "server.sock")
	b := &Bridge{TargetSocket: sock, DialTimeout: time.Second}
	if err := b.Probe(context.Background()); err == nil {
		t.Fatal("probe of a socket that does not exist succeeded")
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := b.Probe(context.Background()); err != nil {
		t.Fatalf("probe of a listening socket: %v", err)
	}
	if err := (&Bridge{}).Probe(context.Background()); err == nil {
		t.Fatal("probe without a target succeeded")
	}
}
