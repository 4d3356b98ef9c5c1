package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

// knownChange is a documented difference between Argo CD versions in what a
// plugin receives, or in how its resources are tracked. A hop crosses it
// when the two versions fall in different eras; only then may it explain a
// difference, and where it is certain it must show one.
type knownChange struct {
	what     string
	upstream []string
	// era names the side of the change a version is on.
	era func(v *semver.Version) string
	// explains says whether a difference in variable name (nil: unset) is
	// this change.
	explains func(name string, before, after *string) bool
	// certain says whether crossing the change must show a difference, for
	// an application whose plugin spec is p.
	certain func(p *v1alpha1.ApplicationSourcePlugin) bool
}

const trackingVariable = "(tracking method)"

var knownChanges = []knownChange{
	{
		what:     "ARGOCD_APP_PROJECT_NAME is set from v3.0 on",
		upstream: []string{"argoproj/argo-cd#21586"},
		era:      before("3.0.0"),
		explains: func(name string, b, a *string) bool {
			return name == "ARGOCD_APP_PROJECT_NAME" && (b == nil) != (a == nil)
		},
		certain: func(*v1alpha1.ApplicationSourcePlugin) bool { return true },
	},
	{
		what:     "empty parameter and plugin env values are passed from v3.0 on, dropped before",
		upstream: []string{"argoproj/argo-cd#22096", "argoproj/argo-cd#18720"},
		era:      before("3.0.0"),
		explains: func(name string, b, a *string) bool {
			set, unset := b, a
			if b == nil {
				set, unset = a, b
			}
			return unset == nil && set != nil && *set == "" &&
				(strings.HasPrefix(name, "PARAM_") || strings.HasPrefix(name, "ARGOCD_ENV_") || name == "ARGOCD_APP_NAMESPACE")
		},
		certain: hasEmptyValue,
	},
	{
		what:     "the format of KUBE_VERSION changed in v3.1, v3.2 and v3.3.3",
		upstream: []string{"argoproj/argo-cd#22650", "argoproj/argo-cd#24066", "argoproj/argo-cd#26469"},
		era: func(v *semver.Version) string {
			for _, bound := range []string{"3.1.0", "3.2.0", "3.3.3"} {
				if v.LessThan(semver.MustParse(bound)) {
					return "<" + bound
				}
			}
			return ">=3.3.3"
		},
		explains: func(name string, b, a *string) bool { return name == "KUBE_VERSION" && b != nil && a != nil },
		certain:  func(*v1alpha1.ApplicationSourcePlugin) bool { return false },
	},
	{
		what:     "resources are tracked by annotation from v3.0 on, by label before",
		upstream: []string{"argoproj/argo-cd#22289", "argoproj/argo-cd#13981"},
		era:      before("3.0.0"),
		explains: func(name string, _, _ *string) bool { return name == trackingVariable },
		certain:  func(*v1alpha1.ApplicationSourcePlugin) bool { return true },
	},
}

func before(bound string) func(*semver.Version) string {
	return func(v *semver.Version) string {
		if v.LessThan(semver.MustParse(bound)) {
			return "<" + bound
		}
		return ">=" + bound
	}
}

func hasEmptyValue(p *v1alpha1.ApplicationSourcePlugin) bool {
	if p == nil {
		return false
	}
	for _, e := range p.Env {
		if e.Value == "" {
			return true
		}
	}
	for _, prm := range p.Parameters {
		if prm.String_ != nil && *prm.String_ == "" {
			return true
		}
	}
	return false
}

func knownChangesUpstream() []string {
	var out []string
	for _, k := range knownChanges {
		out = append(out, k.upstream...)
	}
	return append(out, upgradeUpstream...)
}

// side is what UPG-005 compares on one side of a hop: the parameterized
// plugin's record of its environment (nil for plugins that keep none) and
// the tracking method the manifests carry.
type side struct {
	env      map[string]string
	tracking string
}

func sideOf(manifests []string) side {
	var s side
	for _, m := range manifests {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name        string            `json:"name"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			BinaryData map[string]string `json:"binaryData"`
		}
		if json.Unmarshal([]byte(m), &obj) != nil {
			continue
		}
		switch {
		case obj.Metadata.Annotations[trackingAnnotation] != "":
			s.tracking = "annotation"
		case obj.Metadata.Labels[trackingLabel] != "" && s.tracking == "":
			s.tracking = "label"
		}
		if obj.Kind == "ConfigMap" && obj.Metadata.Name == sidecar.ReceivedConfigMap {
			raw, err := base64.StdEncoding.DecodeString(obj.BinaryData[sidecar.KeyEnviron])
			env := map[string]string{}
			if err == nil && json.Unmarshal(raw, &env) == nil {
				s.env = env
			}
		}
	}
	return s
}

// explainDifferences compares two sides of a hop from -> to. Each difference
// a crossed known change explains is seen (reported with its references); a
// difference nothing explains, or a certain change that did not show, is a
// problem.
func explainDifferences(from, to string, b, a side, p *v1alpha1.ApplicationSourcePlugin) (seen, problems []string) {
	vf, errF := semver.NewVersion(from)
	vt, errT := semver.NewVersion(to)
	if errF != nil || errT != nil {
		return nil, []string{fmt.Sprintf("versions %q and %q are not semantic versions", from, to)}
	}
	var crossed []knownChange
	for _, k := range knownChanges {
		if k.era(vf) != k.era(vt) {
			crossed = append(crossed, k)
		}
	}
	type difference struct {
		name          string
		before, after *string
	}
	var diffs []difference
	if (b.env == nil) != (a.env == nil) {
		problems = append(problems, fmt.Sprintf("the plugin's record of what it received is present on one side of the hop only (before: %t, after: %t)", b.env != nil, a.env != nil))
	}
	if b.env != nil && a.env != nil {
		names := map[string]bool{}
		for n := range b.env {
			names[n] = true
		}
		for n := range a.env {
			names[n] = true
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			bv, bok := b.env[n]
			av, aok := a.env[n]
			if bok != aok || bv != av {
				diffs = append(diffs, difference{n, ptrIf(bv, bok), ptrIf(av, aok)})
			}
		}
	}
	if b.tracking != a.tracking {
		diffs = append(diffs, difference{trackingVariable, ptrIf(b.tracking, b.tracking != ""), ptrIf(a.tracking, a.tracking != "")})
	}
	shown := map[string]bool{}
	for _, d := range diffs {
		i := slices.IndexFunc(crossed, func(k knownChange) bool { return k.explains(d.name, d.before, d.after) })
		line := fmt.Sprintf("%s: %s -> %s", d.name, quoted(d.before), quoted(d.after))
		if i < 0 {
			problems = append(problems, "unexplained difference "+line)
			continue
		}
		shown[crossed[i].what] = true
		seen = append(seen, fmt.Sprintf("%s (%s; %s)", line, crossed[i].what, strings.Join(crossed[i].upstream, ", ")))
	}
	for _, k := range crossed {
		// A plugin that keeps no record shows only the tracking change.
		applies := b.env != nil || k.explains(trackingVariable, nil, nil)
		if applies && k.certain(p) && !shown[k.what] {
			problems = append(problems, fmt.Sprintf("expected a difference from %s to %s, but none showed: %s (%s)", from, to, k.what, strings.Join(k.upstream, ", ")))
		}
	}
	return seen, problems
}

func ptrIf(v string, ok bool) *string {
	if !ok {
		return nil
	}
	return &v
}

func quoted(v *string) string {
	if v == nil {
		return "unset"
	}
	return fmt.Sprintf("%q", clip(*v))
}

func sortedCopy(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
}
