package plugins

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// BindImages makes each role of images run its checks against the plugin
// the image ships, instead of the reference plugin: its plugin.yaml is read
// from the image into <output>/plugin-images/<role>, and it runs as a sidecar.
func (p *Plan) BindImages(ctx context.Context, images map[string]string, output string) error {
	for _, role := range slices.Sorted(maps.Keys(images)) {
		if err := p.BindImage(ctx, conformance.Role(role), images[role], output); err != nil {
			return fmt.Errorf("--plugin-image %s: %w", role, err)
		}
	}
	return nil
}

// BindImage binds role to the plugin image ref ships: its plugin.yaml read
// into <output>/plugin-images/<role>, the service role served over the network.
func (p *Plan) BindImage(ctx context.Context, role conformance.Role, ref, output string) error {
	owner, err := filepath.Abs(output)
	if err != nil {
		return err
	}
	pl, err := argocd.LoadPluginImage(ctx, ref, filepath.Join(owner, "plugin-images", string(role)), owner)
	if err != nil {
		return err
	}
	p.replace(role, asRole(role, pl))
	return nil
}

// replace binds role of the main binding to pl, in place of what was there.
func (p *Plan) replace(role conformance.Role, pl argocd.Plugin) {
	for bi := range p.Bindings {
		b := &p.Bindings[bi]
		if b.Witness {
			continue
		}
		old, had := b.Subjects[role]
		b.Subjects[role] = conformance.Subject{Role: role, Plugin: pl}
		if had {
			if i := slices.IndexFunc(p.Plugins, func(x argocd.Plugin) bool { return x.Dir == old.Plugin.Dir }); i >= 0 {
				p.Plugins[i], p.Dirs[i] = pl, pl.Dir
				return
			}
		}
		p.Plugins, p.Dirs = append(p.Plugins, pl), append(p.Dirs, pl.Dir)
		return
	}
}

// MarkHostPlugins marks, on kind and existing, every role whose plugin is
// a program of this host as unavailable: there plugins run as the
// repo-server's sidecars, from images, so the checks of those roles do not
// apply and the report says why.
func (p *Plan) MarkHostPlugins(runtime string) {
	if !environment.InCluster(runtime) {
		return
	}
	p.serveWitnessesFromImage()
	for _, b := range p.Bindings {
		for role, s := range b.Subjects {
			if s.Extension == nil && s.Plugin.Image == "" {
				s.Unavailable = fmt.Sprintf("it is a program of this host, and the %s runtime runs plugins as the repo-server's sidecars, from images (--plugin-image %s=IMAGE)", runtime, role)
				b.Subjects[role] = s
			}
		}
	}
}

// serveWitnessesFromImage runs, on kind, each witness of the service role
// (the reference service plugin under another name, behind a broken
// bridge) from the service role's image with the witness's plugin.yaml
// mounted over the image's own, as a ConfigMap would be: the plugin is the
// same, only its bridge differs. Without a service image they stay programs
// of this host.
func (p *Plan) serveWitnessesFromImage() {
	var image, id string
	for _, b := range p.Bindings {
		if s, ok := b.Subjects[conformance.RoleService]; ok && !b.Witness && s.Plugin.Image != "" {
			image, id = s.Plugin.Image, s.Plugin.ImageID
		}
	}
	if image == "" {
		return
	}
	for _, b := range p.Bindings {
		s, ok := b.Subjects[conformance.RoleService]
		if !ok || !b.Witness || s.Plugin.Image != "" || s.Plugin.Service == nil {
			continue
		}
		dir := s.Plugin.Dir
		s.Plugin.Image, s.Plugin.ImageID, s.Plugin.ConfigFile = image, id, filepath.Join(dir, "plugin.yaml")
		b.Subjects[conformance.RoleService] = s
		for i := range p.Plugins {
			if p.Plugins[i].Dir == dir {
				p.Plugins[i] = s.Plugin
			}
		}
	}
}
