package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/nodeimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

// buildKindNode makes the kind node image (or finds it made) and prints its tag.
func buildKindNode(output string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := pluginimage.Ping(ctx); err != nil {
		return err
	}
	work, err := filepath.Abs(filepath.Join(output, "node-image"))
	if err != nil {
		return err
	}
	tc, err := toolchain.New(toolchain.Options{Progress: os.Stderr})
	if err != nil {
		return err
	}
	start := time.Now()
	spec, err := nodeimage.FromToolchain(ctx, tc, work, os.Stderr)
	if err != nil {
		return failed(err)
	}
	obtained := time.Since(start)
	for _, n := range spec.Notes {
		fmt.Fprintln(os.Stderr, "note:", n)
	}
	tag, built, err := nodeimage.Ensure(ctx, spec)
	if err != nil {
		return failed(err)
	}
	how := "cached"
	if built {
		how = fmt.Sprintf("built in %.0fs", time.Since(start).Seconds()-obtained.Seconds())
	}
	fmt.Printf("%s\t%s (binaries obtained in %.0fs)\n", tag, how, obtained.Seconds())
	return nil
}
