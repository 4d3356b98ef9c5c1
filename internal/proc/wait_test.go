package proc

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// listenLater listens on network/addr after a delay, as a slow server would.
func listenLater(t *testing.T, network, addr string) {
	t.Helper()
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	t.Cleanup(func() {
		r := <-ch
		if r.err != nil {
			t.Error(r.err)
			return
		}
		r.l.Close()
	})
	go func() {
		time.Sleep(100 * time.Millisecond)
		l, err := net.Listen(network, addr)
		ch <- result{l, err}
		for err == nil {
			var c net.Conn
			if c, err = l.Accept(); err == nil {
				c.Close()
			}
		}
	}()
}

// dyingProcess exits shortly after logging a recognisable last line.
func dyingProcess(t *testing.T) *Process {
	return startT(t, shSpec(t, "argocd-server", `echo starting; sleep 0.2; echo "FATA[0000] boom: bad flag"; exit 3`))
}

func assertFailsFast(t *testing.T, wait func(ctx context.Context, p *Process) error) {
	t.Helper()
	p := dyingProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	err := wait(ctx, p)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("wait took %v after the process died", took)
	}
	if err == nil {
		t.Fatal("no error although the process exited")
	}
	t.Log(err)
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Errorf("error does not wrap the exit status 3: %v", err)
	}
	for _, want := range []string{"argocd-server exited before it was ready: exit status 3", "FATA[0000] boom: bad flag", "starting"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestWaitTCP(t *testing.T) {
	addr := freeAddr(t)
	listenLater(t, "tcp", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitTCP(ctx, nil, addr); err != nil {
		t.Fatal(err)
	}
}

func TestWaitTCPProcessExits(t *testing.T) {
	addr := freeAddr(t)
	assertFailsFast(t, func(ctx context.Context, p *Process) error { return WaitTCP(ctx, p, addr) })
}

func TestWaitTCPTimeout(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := WaitTCP(ctx, nil, addr)
	if err == nil || !strings.Contains(err.Error(), "tcp "+addr) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v, want what and last attempt", err)
	}
}

func TestWaitUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin.sock")
	listenLater(t, "unix", path)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitUnix(ctx, nil, path); err != nil {
		t.Fatal(err)
	}
}

func TestWaitUnixProcessExits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin.sock")
	assertFailsFast(t, func(ctx context.Context, p *Process) error { return WaitUnix(ctx, p, path) })
}

func TestWaitHTTP(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitHTTP(ctx, nil, srv.URL+"/healthz", nil); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestWaitHTTPSelfSignedTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitHTTP(ctx, nil, srv.URL, func(s int) bool { return s == http.StatusOK }); err != nil {
		t.Fatal(err)
	}
}

func TestWaitHTTPProcessExits(t *testing.T) {
	url := "http://" + freeAddr(t) + "/healthz"
	assertFailsFast(t, func(ctx context.Context, p *Process) error { return WaitHTTP(ctx, p, url, nil) })
}

func TestWaitHTTPTimeoutReportsStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := WaitHTTP(ctx, nil, srv.URL, nil)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "GET "+srv.URL) {
		t.Errorf("err = %v", err)
	}
}
