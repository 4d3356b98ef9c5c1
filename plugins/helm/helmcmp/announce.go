package helmcmp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Announcement is Argo CD's ParameterAnnouncement, with the same JSON names.
type Announcement struct {
	Name           string            `json:"name,omitempty"`
	Title          string            `json:"title,omitempty"`
	Tooltip        string            `json:"tooltip,omitempty"`
	Required       bool              `json:"required,omitempty"`
	ItemType       string            `json:"itemType,omitempty"`
	CollectionType string            `json:"collectionType,omitempty"`
	String         string            `json:"string,omitempty"`
	Array          []string          `json:"array,omitempty"`
	Map            map[string]string `json:"map,omitempty"`
}

// Announce builds what the native Helm parameters panel shows, from Argo
// CD's populateHelmAppDetails():
//   - values-files: native lists the available files (helm.valueFiles, found
//     by walkHelmValueFilesInPath) as the choices of an initially empty
//     selection. An announcement has no "choices", only a default, so the
//     available files are the default array; as natively, none is applied
//     until the application sets the parameter.
//   - values: natively an empty text area.
//   - helm-parameters: natively GetParameters(): every leaf of values.yaml,
//     then of the selected value files (ARGOCD_APP_PARAMETERS), flattened to
//     dotted keys with Argo CD's flatVals.
func Announce(r Renderer, appDir string, getenv func(string) string) ([]Announcement, error) {
	available, err := availableValueFiles(appDir)
	if err != nil {
		return nil, err
	}
	p, err := ParseParams(getenv("ARGOCD_APP_PARAMETERS"))
	if err != nil {
		return nil, err
	}
	root := repoRoot(appDir, getenv("ARGOCD_APP_SOURCE_PATH"))
	var selected []string
	for _, f := range p.ValuesFiles {
		// populateHelmAppDetails resolves them with an empty Env.
		path, err := resolveValueFile(appDir, root, envsubst(f, noEnv))
		if err != nil {
			return nil, fmt.Errorf("failed to resolve value files: error resolving value file path: %w", err)
		}
		selected = append(selected, path)
	}
	params, err := helmParameters(r, appDir, root, selected)
	if err != nil {
		return nil, err
	}
	return []Announcement{
		{
			Name: ParamValuesFiles, Title: "VALUES FILES", CollectionType: "array", Array: available,
			Tooltip: "Value files to pass to helm, in order, after the chart's values.yaml. " +
				"The default lists every values file in the chart folder; none is used unless set.",
		},
		{
			Name: ParamValues, Title: "VALUES", CollectionType: "string",
			Tooltip: "Inline YAML values, applied after the value files.",
		},
		{
			Name: ParamHelmParameters, Title: "PARAMETERS", CollectionType: "map", Map: params,
			Tooltip: "Helm --set overrides, applied last. \"true\"/\"false\", \"null\" and integers become " +
				"YAML types, as native Argo CD's --set does; use helm-string-parameters to keep strings.",
		},
	}, nil
}

// availableValueFiles is walkHelmValueFilesInPath: every file or folder below
// the app folder whose name contains "values" and ends in .yaml/.yml, as a
// path relative to the app folder, in lexical walk order.
func availableValueFiles(appDir string) ([]string, error) {
	var files []string
	err := filepath.Walk(appDir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return fmt.Errorf("error reading helm values file from %s: %w", path, err)
		}
		ext := strings.ToLower(filepath.Ext(path))
		if strings.Contains(info.Name(), "values") && (ext == ".yaml" || ext == ".yml") {
			rel, err := filepath.Rel(appDir, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}

// helmParameters is Argo CD's helm.GetParameters: `helm show values .` (the
// chart's own values.yaml, unless it is a link out of the repository), then
// each selected value file that exists, each flattened over the previous.
func helmParameters(r Renderer, appDir, root string, valueFiles []string) (map[string]string, error) {
	var docs []string
	if _, err := resolveValueFile(appDir, root, "values.yaml"); err == nil {
		out, err := r.ShowValues(appDir)
		if err != nil {
			return nil, fmt.Errorf("failed to execute helm inspect values command: %w", err)
		}
		docs = append(docs, out)
	}
	for _, f := range valueFiles {
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			continue // native skips these silently
		}
		if err != nil {
			return nil, fmt.Errorf("failed to read value file %s: %w", f, err)
		}
		docs = append(docs, string(data))
	}
	out := map[string]string{}
	for _, doc := range docs {
		values := map[string]any{}
		// sigs.k8s.io/yaml goes through JSON, so numbers are float64 and
		// print as %v does: 1000000 becomes "1e+06", exactly as natively.
		if err := yaml.Unmarshal([]byte(doc), &values); err != nil {
			return nil, fmt.Errorf("failed to parse values: %w", err)
		}
		flatVals(values, out)
	}
	return out, nil
}

// flatVals is copied from Argo CD util/helm/helm.go (Apache-2.0): maps join
// with ".", list items become key[i], leaves print with %v (nil as "<nil>");
// empty maps and lists produce no key.
func flatVals(input any, output map[string]string, prefixes ...string) {
	switch i := input.(type) {
	case map[string]any:
		for k, v := range i {
			flatVals(v, output, append(prefixes, k)...)
		}
	case []any:
		p := append([]string(nil), prefixes...)
		for j, v := range i {
			flatVals(v, output, append(p[0:len(p)-1], fmt.Sprintf("%s[%v]", prefixes[len(p)-1], j))...)
		}
	default:
		output[strings.Join(prefixes, ".")] = fmt.Sprintf("%v", i)
	}
}
