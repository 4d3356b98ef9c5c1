package proc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// tailLines is how much of a dead component's log an error carries.
const tailLines = 20

// WaitFor polls cond with a short backoff (20ms doubling to 500ms) until it
// returns nil, ctx ends, or p (if non-nil) exits. The error names what was
// awaited and the last cond error; if p exited it also names p, its exit
// error and the last lines of its log, and is returned at once.
func WaitFor(ctx context.Context, p *Process, what string, cond func(ctx context.Context) error) error {
	var exited <-chan struct{} // nil blocks forever: no process to watch
	if p != nil {
		exited = p.Done()
	}
	delay := 20 * time.Millisecond
	for {
		// Checked first so that a condition met by someone else (another
		// process holding the port) does not hide that p died.
		select {
		case <-exited:
			return exitedError(p, what)
		default:
		}
		lastErr := cond(ctx)
		if lastErr == nil {
			select {
			case <-exited:
				return exitedError(p, what)
			default:
				return nil
			}
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("waiting for %s: %w (last attempt: %v)", what, ctx.Err(), lastErr)
		case <-exited:
			timer.Stop()
			return exitedError(p, what)
		case <-timer.C:
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

func exitedError(p *Process, what string) error {
	// p.waitErr is safe to read: callers saw p.Done() closed.
	var exit error = errors.New("exit status 0")
	if p.waitErr != nil {
		exit = p.waitErr
	}
	tail := p.Tail(tailLines)
	if tail == "" {
		return fmt.Errorf("waiting for %s: %s exited before it was ready: %w (log empty)", what, p.name, exit)
	}
	return fmt.Errorf("waiting for %s: %s exited before it was ready: %w; last %d log lines (%s):\n%s",
		what, p.name, exit, tailLines, p.logPath, tail)
}

// attemptTimeout bounds one probe, so that a hung connect cannot outlast the
// process-exit check.
const attemptTimeout = 2 * time.Second

// WaitTCP waits until a TCP connect to addr succeeds.
func WaitTCP(ctx context.Context, p *Process, addr string) error {
	return WaitFor(ctx, p, "tcp "+addr, func(ctx context.Context) error {
		return dial(ctx, "tcp", addr)
	})
}

// WaitUnix waits until a connect to the unix socket at path succeeds; the
// socket file existing is not enough, something must be accepting on it.
func WaitUnix(ctx context.Context, p *Process, path string) error {
	return WaitFor(ctx, p, "unix socket "+path, func(ctx context.Context) error {
		return dial(ctx, "unix", path)
	})
}

func dial(ctx context.Context, network, addr string) error {
	d := net.Dialer{Timeout: attemptTimeout}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// WaitHTTP waits until a GET of url answers with a status ok accepts (nil ok
// accepts 2xx). Redirects are not followed, so ok sees the component's own
// answer.
func WaitHTTP(ctx context.Context, p *Process, url string, ok func(status int) bool) error {
	if ok == nil {
		ok = func(status int) bool { return status >= 200 && status < 300 }
	}
	client := &http.Client{
		Timeout: attemptTimeout,
		Transport: &http.Transport{
			Proxy: nil, // a readiness probe of a local component must not go through a proxy
			// Components serve TLS with self-signed certificates generated at
			// startup; the probe only reads a status code, so identity does not matter.
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	return WaitFor(ctx, p, "GET "+url, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if !ok(resp.StatusCode) {
			return fmt.Errorf("status %s", resp.Status)
		}
		return nil
	})
}
