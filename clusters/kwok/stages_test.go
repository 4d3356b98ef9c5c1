package kwok

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

// stageDoc is the part of kwok's v1alpha1 Stage the tests look at; parsing
// strictly catches a misspelt field kwok would silently ignore.
type stageDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		ResourceRef struct {
			APIGroup string `json:"apiGroup"`
			Kind     string `json:"kind"`
		} `json:"resourceRef"`
		Selector *struct {
			MatchExpressions []struct {
				CEL *struct {
					Expression string `json:"expression"`
				} `json:"cel,omitempty"`
				Key      string   `json:"key,omitempty"`
				Operator string   `json:"operator,omitempty"`
				Values   []string `json:"values,omitempty"`
			} `json:"matchExpressions"`
		} `json:"selector"`
		Delay              map[string]int64 `json:"delay,omitempty"`
		ImmediateNextStage *bool            `json:"immediateNextStage,omitempty"`
		Next               *struct {
			StatusTemplate string `json:"statusTemplate,omitempty"`
			Delete         bool   `json:"delete,omitempty"`
		} `json:"next,omitempty"`
		Steps []struct {
			Patch *struct {
				Subresource string `json:"subresource,omitempty"`
				Root        string `json:"root,omitempty"`
				Template    string `json:"template"`
			} `json:"patch,omitempty"`
			Apply *struct {
				Template string `json:"template"`
			} `json:"apply,omitempty"`
			Event *struct {
				Type    string `json:"type"`
				Reason  string `json:"reason"`
				Message string `json:"message"`
			} `json:"event,omitempty"`
			Delete bool `json:"delete,omitempty"`
		} `json:"steps,omitempty"`
	} `json:"spec"`
}

// kwokFuncs stubs the template functions kwok (and sprig) provide, so that
// the templates can be parsed here.
var kwokFuncs = template.FuncMap{}

func init() {
	for _, name := range []string{"Now", "Quote", "YAML", "Version", "NodeConditions", "NodeIP", "NodeName", "NodePort",
		"NodeIPsWith", "PodIPsWith", "default"} {
		kwokFuncs[name] = func(...any) any { return nil }
	}
}

func splitDocs(data []byte) []string {
	var docs []string
	for _, d := range strings.Split("\n"+string(data), "\n---\n") {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

func TestConfigHasStages(t *testing.T) {
	p := &Provider{opts: Options{KubeVersion: "v1.34.4", EtcdVersion: "v3.6.5", PortBase: 28000}}
	conf, err := p.config()
	if err != nil {
		t.Fatal(err)
	}
	docs := splitDocs(conf)
	var head map[string]any
	if err := yaml.Unmarshal([]byte(docs[0]), &head); err != nil || head["kind"] != "KwokctlConfiguration" {
		t.Fatalf("first document: kind %v, err %v", head["kind"], err)
	}
	want := map[string]string{
		"node-initialize": "v1/Node", "node-heartbeat-with-lease": "v1/Node",
		"pod-ready": "v1/Pod", "pod-complete": "v1/Pod", "pod-delete": "v1/Pod",
		"ingress-address": "networking.k8s.io/v1/Ingress", "service-load-balancer": "v1/Service",
		"pvc-provision": "v1/PersistentVolumeClaim",
		"pv-delete":     "v1/PersistentVolume",
	}
	got := map[string]string{}
	for _, d := range docs[1:] {
		var s stageDoc
		if err := yaml.UnmarshalStrict([]byte(d), &s); err != nil {
			t.Fatalf("stage document does not parse: %v\n%s", err, d)
		}
		name := s.Metadata.Name
		if s.APIVersion != "kwok.x-k8s.io/v1alpha1" || s.Kind != "Stage" {
			t.Errorf("%s: %s %s, want a kwok.x-k8s.io/v1alpha1 Stage", name, s.APIVersion, s.Kind)
		}
		if _, dup := got[name]; dup {
			t.Errorf("stage %s twice", name)
		}
		got[name] = s.Spec.ResourceRef.APIGroup + "/" + s.Spec.ResourceRef.Kind
		// kwok ignores a stage without a selector.
		if s.Spec.Selector == nil || len(s.Spec.Selector.MatchExpressions) == 0 {
			t.Errorf("%s: no selector", name)
		}
		var tpls []string
		if s.Spec.Next != nil {
			tpls = append(tpls, s.Spec.Next.StatusTemplate)
		}
		for _, st := range s.Spec.Steps {
			if st.Patch != nil {
				tpls = append(tpls, st.Patch.Template)
			}
			if st.Apply != nil {
				tpls = append(tpls, st.Apply.Template)
			}
		}
		for _, tpl := range tpls {
			if _, err := template.New(name).Funcs(kwokFuncs).Parse(tpl); err != nil {
				t.Errorf("%s: template: %v", name, err)
			}
		}
	}
	for name, ref := range want {
		if got[name] != ref {
			t.Errorf("stage %s: resource %q, want %q", name, got[name], ref)
		}
	}
	if len(got) != len(want) {
		t.Errorf("stages %v, want %v", got, want)
	}
}

// The stages and the classes CreateClasses makes must name the same class
// and controllers.
func TestStagesNameTheClasses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("stages", "controllers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"'" + ClassName + "'", "'" + volumeProvisioner + "'", "provisioned-by: " + volumeProvisioner} {
		if !strings.Contains(string(data), s) {
			t.Errorf("controllers.yaml does not contain %s", s)
		}
	}
}

// startedComponents reads kwokctl's debug log: only the components it says
// it started count, not those it found running.
func TestStartedComponents(t *testing.T) {
	log := []byte(`{"time":"t","level":"DEBUG","msg":"Component already started","cluster":"c","component":"etcd"}
not json
{"time":"t","level":"DEBUG","msg":"Starting component","cluster":"c","component":"kube-controller-manager"}
{"time":"t","level":"INFO","msg":"Cluster is started","cluster":"c"}
`)
	if got := startedComponents(log); len(got) != 1 || got[0] != "kube-controller-manager" {
		t.Errorf("startedComponents = %v, want [kube-controller-manager]", got)
	}
	if got := startedComponents(nil); len(got) != 0 {
		t.Errorf("startedComponents(nil) = %v", got)
	}
}
