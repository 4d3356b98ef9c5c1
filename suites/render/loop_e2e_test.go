package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

// syncBuffer is a buffer the loop writes to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLoopRendersChanges: the loop renders the sample, shows what an edit
// of it changed object by object, and restarts the plugin when the plugin
// changes, through the real repo-server and argocd-cmp-server. The new
// plugin takes the ports of the one it replaces, as in render --watch.
func TestLoopRendersChanges(t *testing.T) {
	e2e(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sample := t.TempDir()
	for _, name := range []string{"cmp-plain.marker", "config.yaml", "deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join("../../plugins/plain/samples/basic", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sample, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, p := startPlain(t, ctx)
	var state, starts atomic.Int32
	var out, log syncBuffer
	first := make(chan *Result, 1)
	loop := &Loop{Source: Source{Folder: sample, Path: ".", AppName: "loop", Namespace: "default", Project: "default", TrackingMethod: "annotation"},
		Out: &out, Log: &log, Every: 50 * time.Millisecond,
		Start: func(ctx context.Context) (*Renderer, argocd.Plugin, error) {
			starts.Add(1)
			nr, err := Start(ctx, Options{ArgoCDVersion: os.Getenv("ARGOCD_VERSION"), Plugin: p, PortBase: 28100,
				Toolchain: toolchain.Options{NoBuild: os.Getenv("CMP_CONFORMANCE_RENDER_BUILD") == ""}})
			return nr, p, err
		},
		PluginState: func(context.Context) (string, error) { return string(rune('a' + state.Load())), nil },
		// The edit is made before the first render is handed back, as an
		// author saving as soon as the output shows: it must be seen.
		Rendered: func(res *Result) error {
			first <- res
			return os.WriteFile(filepath.Join(sample, "config.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sample-config\ndata:\n  greeting: edited\n"), 0o644)
		},
	}
	done := make(chan error, 1)
	var last *Renderer
	go func() {
		var err error
		last, err = loop.Run(ctx, r, p)
		done <- err
	}()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			select {
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v\nout:\n%s\nlog:\n%s", what, ctx.Err(), out.String(), log.String())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	select {
	case res := <-first:
		if len(res.Manifests) != 2 {
			t.Fatalf("the first render gave %d objects, want 2", len(res.Manifests))
		}
	case <-ctx.Done():
		t.Fatalf("no first render: %s", log.String())
	}
	waitFor("the edit's diff", func() bool { return strings.Contains(out.String(), "~ ConfigMap sample-config (changed)") })
	if !strings.Contains(out.String(), "+  greeting: edited") || strings.Contains(out.String(), "Deployment") {
		t.Errorf("the diff does not show the edit alone:\n%s", out.String())
	}
	state.Add(1)
	waitFor("the plugin's restart and a render after it", func() bool {
		return starts.Load() == 1 && strings.Count(log.String(), "objects (source type Plugin)") >= 3
	})
	if !strings.Contains(log.String(), "the plugin changed: restarting it") {
		t.Errorf("the restart was not said:\n%s", log.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the loop ended with %v", err)
	}
	if last == r || last == nil {
		t.Error("the loop did not return the renderer it started")
	}
	if err := last.Close(); err != nil {
		t.Error(err)
	}
}
