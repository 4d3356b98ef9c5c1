package conformance

import (
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

func TestWithMarkersReplacesAndAdds(t *testing.T) {
	n := 0
	unique := func(p string) string { n++; return p + "-" + string(rune('a'+n)) }
	sm := Sample{Name: "s", Parameters: []v1alpha1.ApplicationSourcePluginParameter{str("greeting", "hi"), str("replicas", "2")}, Reaches: []string{"greeting", "extra"}}
	got, markers := withMarkers(sm, unique)
	if len(got.Parameters) != 3 {
		t.Fatalf("parameters = %+v, want greeting replaced, replicas kept, extra added", got.Parameters)
	}
	for _, p := range got.Parameters {
		want := map[string]string{"greeting": markers["greeting"], "replicas": "2", "extra": markers["extra"]}[p.Name]
		if p.String_ == nil || *p.String_ != want {
			t.Errorf("parameter %s = %v, want %q", p.Name, p.String_, want)
		}
	}
	if markers["greeting"] == markers["extra"] || !strings.HasPrefix(markers["greeting"], "cmpc-reach") {
		t.Errorf("markers %v: want fresh and distinct", markers)
	}
	if *sm.Parameters[0].String_ != "hi" {
		t.Error("the sample itself was changed")
	}
}

func TestReachesProblem(t *testing.T) {
	for name, tt := range map[string]struct {
		s    Sample
		want string
	}{
		"fine":     {s: Sample{Reaches: []string{"a", "b"}}},
		"twice":    {s: Sample{Reaches: []string{"a", "a"}}, want: "once"},
		"empty":    {s: Sample{Reaches: []string{""}}, want: "once"},
		"an array": {s: Sample{Reaches: []string{"tags"}, Parameters: []v1alpha1.ApplicationSourcePluginParameter{arr("tags", "x")}}, want: "string parameters"},
	} {
		err := reachesProblem("samples[0]", tt.s)
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", name, err, tt.want)
		}
	}
}
