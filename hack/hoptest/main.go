// Command hoptest exercises argocd.Instance.Switch by hand until the upgrade
// run exists (issue 6): it brings up v3.0.23 with the plain, sidecar and
// service plugins, switches to v3.2.11 and back, and prints each hop's
// phases and the version argocd-server reports. Run from the repository root
// after `make build` and `cmp-conformance tools get --argocd-version v3.0.23`:
//
//	go run ./hack/hoptest
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

func target(ctx context.Context, cfg environment.Config, v string) argocd.Target {
	cfg.ArgoCDVersion = v
	set, err := environment.Tools(ctx, cfg)
	if err != nil {
		panic(err)
	}
	var dirs []string
	for _, t := range []string{toolchain.Helm, toolchain.Kustomize} {
		dirs = append(dirs, filepath.Dir(set.Binaries[t].Path))
	}
	return argocd.Target{Version: set.ArgoCDVersion, Binary: set.Binaries[toolchain.ArgoCD].Path, Source: set.ArgoCDSource, ToolDirs: dirs}
}

func version(addr string) string {
	resp, err := http.Get("http://" + addr + "/api/version")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func main() {
	ctx := context.Background()
	var plugins []argocd.Plugin
	for _, d := range []string{"plugins/plain", "plugins/sidecar", "plugins/service"} {
		ad, _ := filepath.Abs(d)
		p, err := argocd.LoadPlugin(ad)
		if err != nil {
			panic(err)
		}
		if d == "plugins/service" {
			p.Service = &argocd.Service{}
		}
		plugins = append(plugins, p)
	}
	abs, _ := filepath.Abs("_output/bin")
	cfg := environment.Config{Runtime: "embedded", ArgoCDVersion: "v3.0.23", PortBase: 18080, Plugins: plugins, PluginPath: []string{abs},
		RunID: "hoptest", LogDir: "/tmp/hoptest-logs", Toolchain: toolchain.Options{Progress: os.Stderr}, Progress: os.Stderr}
	env, err := environment.Up(ctx, cfg)
	if err != nil {
		panic(err)
	}
	defer env.Down(ctx)
	fmt.Println("before:", version(env.ArgoCD.ServerAddr))
	for _, v := range []string{"v3.2.11", "v3.0.23"} {
		t := target(ctx, cfg, v)
		start := time.Now()
		hop, err := env.ArgoCD.Switch(ctx, t)
		if err != nil {
			fmt.Println("switch failed:", err)
			return
		}
		fmt.Printf("hop %s -> %s in %.1fs (%v); server says %s\n", hop.From, hop.To, time.Since(start).Seconds(), hop.Phases, version(env.ArgoCD.ServerAddr))
	}
}
