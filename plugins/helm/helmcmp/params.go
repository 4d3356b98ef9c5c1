package helmcmp

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Parameter names. The first three are announced (they are what the native
// Helm parameters panel shows); the others mirror the remaining
// spec.source.helm fields a user can set and are accepted but not announced.
const (
	ParamValuesFiles     = "values-files"           // helm.valueFiles (array)
	ParamValues          = "values"                 // helm.values / valuesObject (string, YAML)
	ParamHelmParameters  = "helm-parameters"        // helm.parameters (map), --set
	ParamStringParams    = "helm-string-parameters" // helm.parameters with forceString (map), --set-string
	ParamFileParams      = "helm-file-parameters"   // helm.fileParameters (map of name to path), --set-file
	ParamReleaseName     = "release-name"           // helm.releaseName (string)
	ParamNamespace       = "namespace"              // helm.namespace (string)
	ParamKubeVersion     = "kube-version"           // helm.kubeVersion (string)
	ParamAPIVersions     = "api-versions"           // helm.apiVersions (array)
	ParamSkipCRDs        = "skip-crds"              // helm.skipCrds ("true"/"false")
	ParamSkipTests       = "skip-tests"             // helm.skipTests
	ParamSkipSchema      = "skip-schema-validation" // helm.skipSchemaValidation
	ParamIgnoreMissingVF = "ignore-missing-value-files"
)

// appParameter is one entry of ARGOCD_APP_PARAMETERS, as Argo CD marshals
// ApplicationSourcePluginParameter.
type appParameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// Params is the application's Helm configuration, spec.source.helm spelled
// as plugin parameters. Parameter values are data: they reach Helm only as
// strings inside Go values, never through a shell or a command line.
type Params struct {
	ValuesFiles          []string
	Values               string
	Set                  map[string]string
	SetString            map[string]string
	SetFile              map[string]string
	ReleaseName          string
	Namespace            string
	KubeVersion          string
	APIVersions          []string
	SkipCRDs             bool
	SkipTests            bool
	SkipSchemaValidation bool
	IgnoreMissingVF      bool
}

type paramKind int

const (
	kindString paramKind = iota
	kindArray
	kindMap
	kindBool
)

var paramKinds = map[string]paramKind{
	ParamValuesFiles: kindArray, ParamValues: kindString, ParamHelmParameters: kindMap,
	ParamStringParams: kindMap, ParamFileParams: kindMap, ParamReleaseName: kindString,
	ParamNamespace: kindString, ParamKubeVersion: kindString, ParamAPIVersions: kindArray,
	ParamSkipCRDs: kindBool, ParamSkipTests: kindBool, ParamSkipSchema: kindBool,
	ParamIgnoreMissingVF: kindBool,
}

// ParseParams reads ARGOCD_APP_PARAMETERS. An unknown name or a value of the
// wrong shape is an error: silently ignoring a typo would render something
// other than what the user asked for. A repeated name: the last one wins.
func ParseParams(raw string) (Params, error) {
	p := Params{Set: map[string]string{}, SetString: map[string]string{}, SetFile: map[string]string{}}
	if raw == "" {
		return p, nil
	}
	var list []appParameter
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return p, fmt.Errorf("ARGOCD_APP_PARAMETERS is not a JSON array of parameters: %w", err)
	}
	for _, ap := range list {
		kind, ok := paramKinds[ap.Name]
		if !ok {
			return p, fmt.Errorf("unknown parameter %q", ap.Name)
		}
		if err := p.set(ap, kind); err != nil {
			return p, err
		}
	}
	return p, nil
}

func (p *Params) set(ap appParameter, kind paramKind) error {
	switch kind {
	case kindArray:
		if ap.String != nil || ap.Map != nil {
			return fmt.Errorf("parameter %q must be an array", ap.Name)
		}
	case kindMap:
		if ap.String != nil || ap.Array != nil {
			return fmt.Errorf("parameter %q must be a map", ap.Name)
		}
	default:
		if ap.Array != nil || ap.Map != nil {
			return fmt.Errorf("parameter %q must be a string", ap.Name)
		}
	}
	str := ""
	if ap.String != nil {
		str = *ap.String
	}
	var flag bool
	if kind == kindBool && str != "" {
		b, err := strconv.ParseBool(str)
		if err != nil {
			return fmt.Errorf("parameter %q must be \"true\" or \"false\", not %q", ap.Name, str)
		}
		flag = b
	}
	switch ap.Name {
	case ParamValuesFiles:
		p.ValuesFiles = ap.Array
	case ParamValues:
		p.Values = str
	case ParamHelmParameters:
		p.Set = nonNil(ap.Map)
	case ParamStringParams:
		p.SetString = nonNil(ap.Map)
	case ParamFileParams:
		p.SetFile = nonNil(ap.Map)
	case ParamReleaseName:
		p.ReleaseName = str
	case ParamNamespace:
		p.Namespace = str
	case ParamKubeVersion:
		p.KubeVersion = str
	case ParamAPIVersions:
		p.APIVersions = ap.Array
	case ParamSkipCRDs:
		p.SkipCRDs = flag
	case ParamSkipTests:
		p.SkipTests = flag
	case ParamSkipSchema:
		p.SkipSchemaValidation = flag
	case ParamIgnoreMissingVF:
		p.IgnoreMissingVF = flag
	}
	return nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
