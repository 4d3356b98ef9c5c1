// Package plugins is the table of this repository's plugins: which folder
// plays which role of the catalogue (the reference plugins), and the broken
// witnesses under broken/ that must fail checks (witness.yaml), and a run's
// Plan: which plugins it binds and what it builds for them (Prepare). The
// CLI, the certify library, the self-test and the generated checks page read
// it from here, so a role and its folder are mapped in one place.
package plugins

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Reference is the plugin folder of each role, relative to the repository
// root. A folder is named for what its plugin is (a contract, a discover
// rule); its role, for what the checks ask of it.
func Reference() map[conformance.Role]string {
	return map[conformance.Role]string{
		conformance.RolePlain:            "plugins/plain",
		conformance.RoleParameterized:    "plugins/sidecar",
		conformance.RoleFaultyDynamic:    "plugins/faulty",
		conformance.RoleService:          "plugins/service",
		conformance.RoleFaultyGenerate:   "plugins/faulty-generate",
		conformance.RoleHelm:             "plugins/helm",
		conformance.RoleFiles:            "plugins/contract",
		conformance.RolePreserveFileMode: "plugins/contract-preserve",
		conformance.RoleGitCreds:         "plugins/contract-gitcreds",
		conformance.RoleInit:             "plugins/contract-init",
		conformance.RoleDiscoverFileName: "plugins/discover-name",
		conformance.RoleDiscoverGlob:     "plugins/discover-glob",
		conformance.RoleDiscoverCommand:  "plugins/discover-command",
		conformance.RoleNamedOnly:        "plugins/named-only",
		conformance.RoleExtension:        "plugins/extension",
		conformance.RoleCustomizations:   "plugins/customizations",
	}
}

// LoadSubject loads what dir holds for role: the extension folder for
// RoleExtension, else the plugin.
func LoadSubject(role conformance.Role, dir string) (conformance.Subject, error) {
	if role.IsExtension() {
		e, err := extension.Load(dir)
		return conformance.Subject{Role: role, Extension: e}, err
	}
	p, err := argocd.LoadPlugin(dir)
	return conformance.Subject{Role: role, Plugin: asRole(role, p)}, err
}

// asRole readies p to play role as the harness runs that role: the service
// role served over the network, with RoleEnv in its environment.
func asRole(role conformance.Role, p argocd.Plugin) argocd.Plugin {
	if role == conformance.RoleService {
		p.Service = &argocd.Service{}
	}
	p.Env = append(p.Env, RoleEnv(role)...)
	return p
}

// RoleEnv is what the harness adds to the sidecar environment of a plugin
// playing role, as an operator sets a sidecar's: the faulty-generate role
// runs under a gRPC limit of GRPCMaxSizeMB, so that FAULT-004's output
// over the limit is 5 MiB to generate and carry, not 101 (argocd-cmp-server
// reads it from v2.14 at the latest; FAULT-004's versions say so).
func RoleEnv(role conformance.Role) []string {
	if role == conformance.RoleFaultyGenerate {
		return []string{faulty.GRPCMaxSizeEnv + "=" + strconv.Itoa(faulty.GRPCMaxSizeMB)}
	}
	return nil
}

// Roles are the reference roles, in name order.
func Roles() []conformance.Role {
	out := make([]conformance.Role, 0, len(Reference()))
	for r := range Reference() {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// RoleList is Roles for a message: "discover-command, discover-glob, ...".
func RoleList() string {
	var out []string
	for _, r := range Roles() {
		out = append(out, string(r))
	}
	return strings.Join(out, ", ")
}

// Profiles a run (and a witness) can have, as the report names them; a
// witness without a profile serves the catalogue.
const (
	ProfileCatalogue = "catalogue"
	ProfileUpgrade   = "upgrade"
	// ProfilePlugin is certify's: one plugin on its own samples.
	ProfilePlugin = reports.ProfilePlugin
)

// ProfileOf is the profile whose runs have the checks of area.
func ProfileOf(area conformance.Area) string {
	switch area {
	case conformance.Upgrade:
		return ProfileUpgrade
	case conformance.Plugin:
		return ProfilePlugin
	}
	return ProfileCatalogue
}

// ProfileArea is the area whose checks a profile runs ("" for the
// catalogue: every area but upgrade and plugin).
func ProfileArea(profile string) conformance.Area {
	return map[string]conformance.Area{ProfileUpgrade: conformance.Upgrade, ProfilePlugin: conformance.Plugin}[profile]
}
