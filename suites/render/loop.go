package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

// Loop renders a source, then again on every change of the source or of
// the plugin (its folder, programs, a plugin.yaml over an image's, or the
// image a tag names), printing what changed object by object: render
// --watch, and a library form of it.
type Loop struct {
	Source Source
	// Start starts a renderer with the plugin as it is now, loading it
	// again: argocd-cmp-server reads plugin.yaml once, so a changed plugin
	// is a new renderer.
	Start func(ctx context.Context) (*Renderer, argocd.Plugin, error)
	// PluginState says what the plugin is now (a Fingerprint of its files,
	// the ID of the image its tag names): a change restarts it.
	PluginState func(ctx context.Context) (string, error)
	// Every is how often the loop looks for a change (WatchEvery when 0).
	Every time.Duration
	// Rendered gets the first render (Out gets what each later one changed).
	Rendered func(*Result) error
	// Out gets each later render's changes; Log the loop's progress and the
	// plugin's errors.
	Out, Log io.Writer
	// Explained, when set, gets what each render went through (the
	// renderer started with Options.Explain), failed renders too.
	Explained func(*Explanation)
}

// WatchEvery is how often a Loop looks for a change by default: quick
// enough to feel immediate, cheap enough to go unnoticed (a walk of two
// folders, an image inspected).
const WatchEvery = 300 * time.Millisecond

// ErrUnclaimed is a render no plugin did: discovery claimed the sample for
// none, and Argo CD rendered it as a source of another type (a folder of
// YAML files is a Directory source).
var ErrUnclaimed = errors.New("no plugin claimed the sample")

// Once renders the source once with r, logging how it went; a render that
// was not the plugin's is ErrUnclaimed.
func (l *Loop) Once(ctx context.Context, r *Renderer, p argocd.Plugin) (*Result, error) {
	s := l.Source
	res, err := r.Render(ctx, s, p.FullName())
	if l.Explained != nil {
		if e, xerr := r.Explain(); xerr != nil {
			fmt.Fprintln(l.Log, "render: explaining:", xerr)
		} else {
			l.Explained(e)
		}
	}
	if err != nil {
		fmt.Fprintf(l.Log, "render: Argo CD %s could not render %s with %s:\n%s\n", r.Tools.ArgoCDVersion, s, p.FullName(), err)
		if strings.Contains(err.Error(), "could not find plugin") && l.Explained == nil {
			fmt.Fprintln(l.Log, "render: no plugin claimed the sample: --explain says what each discover rule found in it")
		}
		return nil, err
	}
	fmt.Fprintf(l.Log, "render: %d objects (source type %s) in %.2fs\n", len(res.Manifests), res.SourceType, res.Seconds)
	if res.SourceType != "Plugin" {
		fmt.Fprintf(l.Log, "render: no plugin claimed the sample: Argo CD rendered it as a %s source, without %s (--explain says what each discover rule found)\n", res.SourceType, p.FullName())
		return nil, fmt.Errorf("%w: Argo CD took it for a %s source", ErrUnclaimed, res.SourceType)
	}
	return res, nil
}

// Run renders with r (started by the caller with Start), then watches until
// ctx ends; it returns the renderer running then (nil when the last start
// failed), for the caller to close.
// A render that fails is logged and the loop goes on: the author fixes it.
func (l *Loop) Run(ctx context.Context, r *Renderer, p argocd.Plugin) (*Renderer, error) {
	every := l.Every
	if every == 0 {
		every = WatchEvery
	}
	// What is watched is seen before the first render, not after it: an
	// edit made while it rendered (or as soon as it was shown) is a change.
	seen, _ := Fingerprint(l.Source.Folder)
	seenPlugin, _ := l.PluginState(ctx)
	last, err := l.Once(ctx, r, p)
	if err == nil && l.Rendered != nil {
		if err := l.Rendered(last); err != nil {
			return r, err
		}
	}
	fmt.Fprintf(l.Log, "render: watching %s and the plugin; Ctrl-C stops\n", l.Source.Folder)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return r, nil
		case <-tick.C:
		}
		sample, err := Fingerprint(l.Source.Folder)
		if err != nil {
			fmt.Fprintln(l.Log, "render:", err)
			continue
		}
		plugin, err := l.PluginState(ctx)
		if err != nil {
			fmt.Fprintln(l.Log, "render:", err)
			continue
		}
		if sample == seen && plugin == seenPlugin {
			continue
		}
		seen = sample
		if plugin != seenPlugin || r == nil {
			// The plugin as it was stops first: the new one takes its ports.
			seenPlugin = plugin
			fmt.Fprintln(l.Log, "render: the plugin changed: restarting it")
			// r is nil when the last start failed.
			if err := r.Close(); err != nil {
				fmt.Fprintln(l.Log, "render: stopping the plugin as it was:", err)
			}
			r = nil
			nr, np, err := l.Start(ctx)
			if err != nil {
				fmt.Fprintln(l.Log, "render: the changed plugin does not start (a change of it tries again):", err)
				continue
			}
			r, p = nr, np
		}
		res, err := l.Once(ctx, r, p)
		if err != nil {
			continue
		}
		var before []string
		if last != nil {
			before = last.Manifests
		}
		d, err := Diff(before, res.Manifests)
		if err != nil {
			return r, err
		}
		if d == "" {
			d = "no object changed\n"
		}
		fmt.Fprintf(l.Out, "# %s\n%s", time.Now().Format("15:04:05"), d)
		last = res
	}
}
