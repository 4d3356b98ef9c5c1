// Command cmp-broken-bridge is cmp-bridge with a fault, for the witnesses of
// the SVC checks:
//
//	--fault truncate  forwards the first 1 KiB the service sends on each
//	                  connection, then drops the connection: every stream is
//	                  cut short, as by a proxy with a tiny buffer limit.
//	--fault give-up   once a dial to the service fails, never dials again:
//	                  a service that restarts is lost for good.
//	--fault claim-when-down
//	                  while a dial to the service fails, answers Argo CD
//	                  itself: it claims every repository and fails every
//	                  render (standIn).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"sync"

	"github.com/cmp-conformance/cmp-conformance/plugins/service/bridge"
)

const truncateAfter = 1024

func main() {
	bridge.Main("cmp-broken-bridge", "cmp-broken-bridge: cmp-bridge with a --fault (truncate, give-up, claim-when-down), for the self-test.", func(fs *flag.FlagSet) func(*bridge.Bridge) error {
		fault := fs.String("fault", "", "truncate, give-up or claim-when-down")
		return func(b *bridge.Bridge) error {
			switch *fault {
			case "truncate":
				b.Dial = func(ctx context.Context) (net.Conn, error) {
					c, err := b.DialTarget(ctx)
					if err != nil {
						return nil, err
					}
					return &truncating{Conn: c, left: truncateAfter}, nil
				}
			case "give-up":
				var mu sync.Mutex
				var failed error
				b.Dial = func(ctx context.Context) (net.Conn, error) {
					mu.Lock()
					defer mu.Unlock()
					if failed != nil {
						return nil, fmt.Errorf("gave up after an earlier failure: %w", failed)
					}
					c, err := b.DialTarget(ctx)
					if err != nil {
						failed = err
					}
					return c, err
				}
			case "claim-when-down":
				stand := newStandIn()
				b.Dial = func(ctx context.Context) (net.Conn, error) {
					c, err := b.DialTarget(ctx)
					if err != nil {
						return stand.connect(ctx, err)
					}
					return c, nil
				}
			default:
				return fmt.Errorf("--fault %q: want truncate, give-up or claim-when-down", *fault)
			}
			return nil
		}
	})
}

// truncating reads at most left bytes from the service, then fails.
type truncating struct {
	net.Conn
	left int
}

func (t *truncating) Read(p []byte) (int, error) {
	if t.left <= 0 {
		t.Conn.Close()
		return 0, errors.New("truncated")
	}
	if len(p) > t.left {
		p = p[:t.left]
	}
	n, err := t.Conn.Read(p)
	t.left -= n
	return n, err
}
