package helmcmp

import "runtime/debug"

// SDKVersion is the version of module (helm.sh/helm/v3 or v4) linked into
// this binary, read from its build info: the harness builds the plugin at
// the Helm version an Argo CD version pins, which may differ from go.mod's.
// Test binaries carry no dependency build info; they get pinned, which a
// test keeps equal to go.mod.
func SDKVersion(module, pinned string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return pinned
	}
	for _, d := range info.Deps {
		if d.Path == module {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return pinned
}
