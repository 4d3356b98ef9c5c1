package helmcmp

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// nativeBuildEnv is the environment Argo CD's helmTemplate() substitutes into
// --set values and value file paths (reposerver/repository newEnv). The CMP
// server gives the plugin more (KUBE_VERSION, ARGOCD_ENV_*, PARAM_*), but
// native Helm does not see those, so neither does envsubst here.
var nativeBuildEnv = []string{
	"ARGOCD_APP_NAME",
	"ARGOCD_APP_NAMESPACE",
	"ARGOCD_APP_PROJECT_NAME",
	"ARGOCD_APP_REVISION",
	"ARGOCD_APP_REVISION_SHORT",
	"ARGOCD_APP_REVISION_SHORT_8",
	"ARGOCD_APP_SOURCE_REPO_URL",
	"ARGOCD_APP_SOURCE_PATH",
	"ARGOCD_APP_SOURCE_TARGET_REVISION",
}

// envsubst is Argo CD's v1alpha1.Env.Envsubst: $VAR and ${VAR} of the native
// build env are replaced, any other name becomes "", "$$" is a literal "$".
// It is plain string substitution (os.Expand): nothing is ever executed, so
// "$(cmd)" and backticks stay as they are.
func envsubst(s string, getenv func(string) string) string {
	known := map[string]bool{}
	for _, n := range nativeBuildEnv {
		known[n] = true
	}
	return os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		if !known[name] {
			return ""
		}
		return getenv(name)
	})
}

// noEnv is the empty Env that populateHelmAppDetails() passes when it
// resolves the selected value files for the parameters announcement.
func noEnv(string) string { return "" }

// releaseName is the name part of ARGOCD_APP_NAME: for apps outside the
// control-plane namespace Argo CD sends "<namespace>_<name>", and helmTemplate()
// keeps what follows the first "_" (argo.ParseInstanceName).
func releaseName(appName string) string {
	if _, name, ok := strings.Cut(appName, "_"); ok {
		return name
	}
	return appName
}

// repoRoot finds the repository root in the CMP working tree: the CMP server
// unpacks the repository and runs the plugin in <root>/<ARGOCD_APP_SOURCE_PATH>.
// When the two do not line up, the app folder itself is the root, which only
// narrows what value files may be read.
func repoRoot(appDir, sourcePath string) string {
	rel := filepath.Clean(strings.TrimPrefix(filepath.Clean("/"+sourcePath), "/"))
	if rel == "." || rel == "" {
		return appDir
	}
	if root, ok := strings.CutSuffix(appDir, string(filepath.Separator)+rel); ok && root != "" {
		return root
	}
	return appDir
}

// resolveValueFile is Argo CD's pathutil.ResolveValueFilePathOrUrl without
// remote files: a relative path is taken from the app folder, an absolute one
// from the repository root, symbolic links are followed, and the result must
// stay inside the repository. URLs are refused as native does when
// helm.valuesFileSchemes allows none: a CMP has no business fetching them.
func resolveValueFile(appDir, root, file string) (string, error) {
	if u, err := url.Parse(file); err == nil && u.Scheme != "" {
		return "", fmt.Errorf("the URL scheme '%s' is not allowed", u.Scheme)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	p := file
	if filepath.IsAbs(p) {
		p = filepath.Join(absRoot, p)
	} else {
		p = filepath.Join(appDir, p)
	}
	p, err = resolveSymlinks(p, 10)
	if err != nil {
		return "", fmt.Errorf("failed to resolve path '%s': %w", file, err)
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", err
	}
	rootSlash := strings.TrimSuffix(absRoot, string(filepath.Separator)) + string(filepath.Separator)
	if p+string(filepath.Separator) == rootSlash {
		return "", fmt.Errorf("file '%s' resolved to the repository root, which is not allowed", file)
	}
	if !strings.HasPrefix(p, rootSlash) {
		return "", fmt.Errorf("file '%s' resolved to outside repository root", file)
	}
	return p, nil
}

// resolveSymlinks follows a chain of links as Argo CD's
// resolveSymbolicLinkRecursive does (only the last element is a link target).
func resolveSymlinks(p string, depth int) (string, error) {
	target, err := os.Readlink(p)
	if err != nil {
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			return p, nil // not a link, or does not exist
		}
		return "", err
	}
	if depth == 0 {
		return "", errors.New("maximum nesting level reached")
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	return resolveSymlinks(target, depth-1)
}

// cleanSetParameter is Argo CD's cleanSetParameters: commas are escaped so a
// value is one --set entry, unless the value is a helm list "{a,b}".
func cleanSetParameter(val string) string {
	if strings.HasPrefix(val, "{") && strings.HasSuffix(val, "}") {
		return val
	}
	var b strings.Builder
	var prev rune
	for _, r := range val {
		if r == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}
