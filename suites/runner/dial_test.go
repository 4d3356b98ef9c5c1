package runner

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	repocredspkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/repocreds"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	grpcutil "github.com/argoproj/argo-cd/v3/util/grpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/metadata"
)

// credsServer answers ListRepositoryCredentials and keeps the token each
// call carried.
type credsServer struct {
	repocredspkg.UnimplementedRepoCredsServiceServer
	mu     sync.Mutex
	tokens []string
}

func (s *credsServer) ListRepositoryCredentials(ctx context.Context, _ *repocredspkg.RepoCredsQuery) (*v1alpha1.RepoCredsList, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = append(s.tokens, strings.Join(md.Get("token"), ","))
	return &v1alpha1.RepoCredsList{}, nil
}

// serve serves srv on addr ("127.0.0.1:0" for any port) until the test ends
// or the returned stop is called.
func serve(t *testing.T, addr string, srv *credsServer) (string, func()) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	repocredspkg.RegisterRepoCredsServiceServer(s, srv)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return l.Addr().String(), s.Stop
}

// idleAfterACall takes a new channel (and its dial error), makes one call
// on it and waits for it to go idle (its idle timeout passed); the channel
// is closed when the test ends.
func idleAfterACall(t *testing.T) func(*grpc.ClientConn, error) *grpc.ClientConn {
	return func(conn *grpc.ClientConn, err error) *grpc.ClientConn {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		if err := list(conn, 5*time.Second); err != nil {
			t.Fatalf("first call: %v", err)
		}
		untilIdle(t, conn)
		return conn
	}
}

// untilIdle waits for conn to go idle.
func untilIdle(t *testing.T, conn *grpc.ClientConn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for s := conn.GetState(); s != connectivity.Idle; s = conn.GetState() {
		if !conn.WaitForStateChange(ctx, s) {
			t.Fatalf("the channel did not go idle: %s", s)
		}
	}
}

func list(conn *grpc.ClientConn, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := repocredspkg.NewRepoCredsServiceClient(conn).ListRepositoryCredentials(ctx, &repocredspkg.RepoCredsQuery{})
	return err
}

// TestDialSurvivesIdleAndRestart: the API's channel carries the token, and
// still answers after it went idle and after the server restarted on the
// same address (what an upgrade hop does).
func TestDialSurvivesIdleAndRestart(t *testing.T) {
	srv := &credsServer{}
	addr, stop := serve(t, "127.0.0.1:0", srv)
	conn := idleAfterACall(t)(dial(addr, "tok", false, grpc.WithIdleTimeout(100*time.Millisecond)))
	if err := list(conn, 5*time.Second); err != nil {
		t.Fatalf("a call after the channel went idle: %v", err)
	}
	stop()
	// The client learns that the connection is gone (a call already on it
	// when the server died fails, as any would), and the next call waits
	// for the server to be back.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for s := conn.GetState(); s == connectivity.Ready; s = conn.GetState() {
		if !conn.WaitForStateChange(ctx, s) {
			t.Fatal("the channel did not notice the server stopped")
		}
	}
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		time.Sleep(300 * time.Millisecond) // the call below must begin while nothing listens
		serve(t, addr, srv)
	}()
	if err := list(conn, 10*time.Second); err != nil {
		t.Fatalf("a call while the server restarted: %v", err)
	}
	<-restarted
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.tokens) != 3 || srv.tokens[0] != "tok" || srv.tokens[2] != "tok" {
		t.Errorf("tokens seen by the server: %q, want the session token on each of 3 calls", srv.tokens)
	}
}

// TestArgoCDClientIdleCause shows why dial does not use Argo CD's apiclient:
// its channel (util/grpc.BlockingNewClient) redials with the one socket it
// dialed first, so a call after the channel went idle fails.
func TestArgoCDClientIdleCause(t *testing.T) {
	addr, _ := serve(t, "127.0.0.1:0", &credsServer{})
	conn := idleAfterACall(t)(grpcutil.BlockingNewClient(context.Background(), "tcp", addr, nil, grpc.WithIdleTimeout(100*time.Millisecond)))
	err := list(conn, 5*time.Second)
	if err == nil {
		t.Log("Argo CD's client now survives going idle: dial could use apiclient again")
		return
	}
	t.Logf("as in CI: %v", err)
	if !strings.Contains(err.Error(), "use of closed network connection") {
		t.Errorf("Argo CD's client failed after going idle, but not with the closed socket: %v", err)
	}
}
