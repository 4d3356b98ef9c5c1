package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/health"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-conformance/cmp-conformance/clusters/kwok"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// resourcesHealthy expects every resource of the application to be
// Healthy, resource by resource, naming each that is not with Argo CD's
// health message. A resource whose health needs a controller this cluster
// does not run (clusterLacks) is not held against the plugin: it is kept in
// cluster (what, and why) for the check to observe. A custom resource the
// sample gives its operator's status for (statuses) gets that status
// written once, as its operator would write it, and is then judged as any
// other. A resource the cluster's controllers serve but that stays
// unhealthy is the plugin's.
func resourcesHealthy(runtime string, cluster map[string]string, statuses []OperatorStatus) dsl.Expectation {
	written := map[types.UID]bool{}
	return func(c *dsl.Consequences) (dsl.State, string) {
		app, err := c.App()
		if err != nil {
			return dsl.Pending, err.Error()
		}
		if len(app.Status.Resources) == 0 && app.Status.Sync.Status == v1alpha1.SyncStatusCodeSynced {
			// Synced to nothing: nothing of the sample can be judged.
			return dsl.Failed, "the sample generated no resource (an empty output, synced to nothing): a sample must deploy something for its health to mean anything; check its path and what the plugin prints for it"
		}
		if app.Status.Health.Status == health.HealthStatusHealthy {
			return dsl.Succeeded, ""
		}
		var waiting []string
		for _, r := range app.Status.Resources {
			if r.Health == nil || r.Health.Status == health.HealthStatusHealthy {
				continue
			}
			what := fmt.Sprintf("%s %s: %s", r.Kind, resourceName(r), r.Health.Status)
			if r.Health.Message != "" {
				what += " (" + r.Health.Message + ")"
			}
			live, err := c.LiveObject(r)
			if err != nil {
				waiting = append(waiting, what+": "+err.Error())
				continue
			}
			if i := slices.IndexFunc(statuses, func(o OperatorStatus) bool { return o.Matches(r) }); i >= 0 {
				if !written[live.GetUID()] {
					if _, err := c.WriteStatus(live, statuses[i].Status); err != nil {
						return dsl.Pending, fmt.Sprintf("writing the operator's status (certify.yaml operatorStatus) on %s %s: %v", r.Kind, resourceName(r), err)
					}
					written[live.GetUID()] = true
					observe("%s %s: wrote the status its operator would write (certify.yaml operatorStatus)", r.Kind, resourceName(r))
				}
				waiting = append(waiting, what+" (with the status certify.yaml gives its operator)")
				continue
			}
			if why := clusterLacks(runtime, live); why != "" {
				cluster[what] = why
				continue
			}
			waiting = append(waiting, what)
		}
		if len(waiting) == 0 && len(app.Status.Resources) > 0 {
			return dsl.Succeeded, ""
		}
		// In name order, so that a message reads the same from run to run.
		slices.Sort(waiting)
		return dsl.Pending, fmt.Sprintf("application health is %q: %s", app.Status.Health.Status, strings.Join(waiting, "; "))
	}
}

// observeCluster records, once each, the resources the cluster could not
// make Healthy.
func observeCluster(sample string, cluster map[string]string) {
	for _, what := range slices.Sorted(maps.Keys(cluster)) {
		observe("sample %s: %s: not held against the plugin: %s", sample, what, cluster[what])
	}
}

func resourceName(r v1alpha1.ResourceStatus) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// builtIn are the API groups whose kinds Kubernetes' own controllers serve
// (and kwok's pods stand for a kubelet): a resource of another group is a
// custom resource, whose health its operator writes.
var builtIn = map[string]bool{"": true, "apps": true, "batch": true, "networking.k8s.io": true, "policy": true,
	"autoscaling": true, "rbac.authorization.k8s.io": true, "storage.k8s.io": true, "apiextensions.k8s.io": true,
	"admissionregistration.k8s.io": true, "scheduling.k8s.io": true, "coordination.k8s.io": true, "discovery.k8s.io": true}

// clusterLacks says why obj cannot become Healthy on this runtime for a
// reason of the cluster (no controller serves it), or "" when the cluster
// serves it, so that its health is the plugin's doing. The embedded
// cluster simulates an ingress controller, a load balancer and a volume
// provisioner for its default classes (clusters/kwok/stages); kind and a
// cluster you give are assumed to have none of them.
func clusterLacks(runtime string, obj *unstructured.Unstructured) string {
	gvk := obj.GroupVersionKind()
	embedded := runtime == "embedded"
	switch {
	case gvk.Group == "networking.k8s.io" && gvk.Kind == "Ingress":
		class, _, _ := unstructured.NestedString(obj.Object, "spec", "ingressClassName")
		if class == "" {
			class = obj.GetAnnotations()["kubernetes.io/ingress.class"]
		}
		switch {
		case !embedded:
			return fmt.Sprintf("the %s runtime runs no ingress controller, which gives an Ingress its address", runtime)
		case class != "" && class != kwok.ClassName:
			return fmt.Sprintf("no ingress controller of this cluster serves class %q (it serves %q, its default)", class, kwok.ClassName)
		}
	case gvk.Group == "" && gvk.Kind == "Service":
		if t, _, _ := unstructured.NestedString(obj.Object, "spec", "type"); t != "LoadBalancer" {
			return ""
		}
		class, _, _ := unstructured.NestedString(obj.Object, "spec", "loadBalancerClass")
		switch {
		case !embedded:
			return fmt.Sprintf("the %s runtime runs no load balancer, which gives a LoadBalancer Service its address", runtime)
		case class != "":
			return fmt.Sprintf("no load balancer of this cluster serves loadBalancerClass %q (it serves Services without one)", class)
		}
	case gvk.Group == "" && gvk.Kind == "PersistentVolumeClaim":
		class, set, _ := unstructured.NestedString(obj.Object, "spec", "storageClassName")
		switch {
		case !embedded:
			return fmt.Sprintf("the %s runtime binds a claim only when a pod uses it, if its class has a provisioner at all", runtime)
		case set && class != kwok.ClassName:
			return fmt.Sprintf("no provisioner of this cluster serves storage class %q (it serves %q, its default)", class, kwok.ClassName)
		}
	case !builtIn[gvk.Group]:
		return fmt.Sprintf("a %s is a custom resource: its health is what its operator writes, and no operator runs here (give the status it would write in certify.yaml, samples[].operatorStatus, for it to be judged)", gvk.Kind)
	}
	return ""
}
