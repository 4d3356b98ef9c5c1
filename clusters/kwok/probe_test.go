package kwok

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/health"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// probeCase is one object and Argo CD's verdict a real cluster with the
// simulated controllers would give it.
type probeCase struct {
	name string
	want health.HealthStatusCode
	yaml string
}

var probeGVR = map[string]schema.GroupVersionResource{
	"Ingress":                 {Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"},
	"Service":                 {Version: "v1", Resource: "services"},
	"PersistentVolumeClaim":   {Version: "v1", Resource: "persistentvolumeclaims"},
	"Job":                     {Group: "batch", Version: "v1", Resource: "jobs"},
	"StatefulSet":             {Group: "apps", Version: "v1", Resource: "statefulsets"},
	"DaemonSet":               {Group: "apps", Version: "v1", Resource: "daemonsets"},
	"Deployment":              {Group: "apps", Version: "v1", Resource: "deployments"},
	"Pod":                     {Version: "v1", Resource: "pods"},
	"HorizontalPodAutoscaler": {Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"},
}

const podSpec = `spec: {containers: [{name: c, image: example.com/app:1, resources: {requests: {cpu: 10m}}}]}`

func ingress(name, extra string) string {
	return `{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: ` + name + extra + `}, spec: {` +
		`%s defaultBackend: {service: {name: web, port: {number: 80}}}}}`
}

var probeCases = []probeCase{
	{"ing-default", health.HealthStatusHealthy, fmt.Sprintf(ingress("ing-default", ""), "")},
	{"ing-class", health.HealthStatusHealthy, fmt.Sprintf(ingress("ing-class", ""), "ingressClassName: cmp-conformance,")},
	{"ing-annotation", health.HealthStatusHealthy, fmt.Sprintf(ingress("ing-annotation", `, annotations: {kubernetes.io/ingress.class: cmp-conformance}`), "")},
	{"ing-other-class", health.HealthStatusProgressing, fmt.Sprintf(ingress("ing-other-class", ""), "ingressClassName: nginx,")},
	{"ing-other-annotation", health.HealthStatusProgressing, fmt.Sprintf(ingress("ing-other-annotation", `, annotations: {kubernetes.io/ingress.class: nginx}`), "")},
	{"svc-lb", health.HealthStatusHealthy, `{apiVersion: v1, kind: Service, metadata: {name: svc-lb}, spec: {type: LoadBalancer, selector: {app: web}, ports: [{port: 80}]}}`},
	{"svc-lb-ip", health.HealthStatusHealthy, `{apiVersion: v1, kind: Service, metadata: {name: svc-lb-ip}, spec: {type: LoadBalancer, loadBalancerIP: 10.9.8.7, selector: {app: web}, ports: [{port: 80}]}}`},
	{"svc-lb-class", health.HealthStatusProgressing, `{apiVersion: v1, kind: Service, metadata: {name: svc-lb-class}, spec: {type: LoadBalancer, loadBalancerClass: example.com/nobody, selector: {app: web}, ports: [{port: 80}]}}`},
	{"svc-clusterip", health.HealthStatusHealthy, `{apiVersion: v1, kind: Service, metadata: {name: svc-clusterip}, spec: {selector: {app: web}, ports: [{port: 80}]}}`},
	{"pvc-default", health.HealthStatusHealthy, `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pvc-default}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`},
	{"pvc-class", health.HealthStatusHealthy, `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pvc-class}, spec: {storageClassName: cmp-conformance, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`},
	{"pvc-missing-class", health.HealthStatusProgressing, `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pvc-missing-class}, spec: {storageClassName: no-such-class, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`},
	{"pvc-no-class", health.HealthStatusProgressing, `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pvc-no-class}, spec: {storageClassName: "", accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`},
	{"pvc-selector", health.HealthStatusProgressing, `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pvc-selector}, spec: {selector: {matchLabels: {disk: fast}}, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`},
	{"job", health.HealthStatusHealthy, `{apiVersion: batch/v1, kind: Job, metadata: {name: job}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.com/app:1}]}}}}`},
	{"job-unschedulable", health.HealthStatusProgressing, `{apiVersion: batch/v1, kind: Job, metadata: {name: job-unschedulable}, spec: {template: {spec: {restartPolicy: Never, nodeSelector: {no-such: label}, containers: [{name: c, image: example.com/app:1}]}}}}`},
	{"job-suspended", health.HealthStatusSuspended, `{apiVersion: batch/v1, kind: Job, metadata: {name: job-suspended}, spec: {suspend: true, template: {spec: {restartPolicy: Never, containers: [{name: c, image: example.com/app:1}]}}}}`},
	{"sts", health.HealthStatusHealthy, `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: sts}, spec: {replicas: 2, serviceName: sts, selector: {matchLabels: {app: sts}}, template: {metadata: {labels: {app: sts}}, ` + podSpec + `}, volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]}}`},
	{"sts-missing-class", health.HealthStatusProgressing, `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: sts-missing-class}, spec: {replicas: 1, serviceName: sts, selector: {matchLabels: {app: sts2}}, template: {metadata: {labels: {app: sts2}}, ` + podSpec + `}, volumeClaimTemplates: [{metadata: {name: data}, spec: {storageClassName: no-such-class, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]}}`},
	{"ds", health.HealthStatusHealthy, `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ds}, spec: {selector: {matchLabels: {app: ds}}, template: {metadata: {labels: {app: ds}}, ` + podSpec + `}}}`},
	{"deploy", health.HealthStatusHealthy, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: deploy}, spec: {replicas: 1, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, ` + podSpec + `}}}`},
	{"pod", health.HealthStatusHealthy, `{apiVersion: v1, kind: Pod, metadata: {name: pod}, ` + podSpec + `}`},
	{"hpa", health.HealthStatusHealthy, `{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: hpa}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: deploy}, minReplicas: 1, maxReplicas: 2, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]}}`},
	{"hpa-no-target", health.HealthStatusDegraded, `{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: hpa-no-target}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: no-such}, minReplicas: 1, maxReplicas: 2, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]}}`},
}

// probeBinary finds a toolchain binary, laid out as root/<tool>/<version>/<tool>.
func probeBinary(t *testing.T, root, tool string) string {
	m, _ := filepath.Glob(filepath.Join(root, tool, "*", tool))
	if len(m) == 0 {
		t.Fatalf("no %s under %s", tool, root)
	}
	return m[len(m)-1]
}

// TestStagesLive brings a real embedded cluster up and checks Argo CD's
// health verdict on each probe case. Opt-in: CMPC_KWOK_PROBE_TOOLS names the
// toolchain's bin directory (~/.cache/cmp-conformance/bin).
func TestStagesLive(t *testing.T) {
	root := os.Getenv("CMPC_KWOK_PROBE_TOOLS")
	if root == "" {
		t.Skip("CMPC_KWOK_PROBE_TOOLS not set")
	}
	base := 28000
	if v := os.Getenv("CMPC_KWOK_PROBE_PORT"); v != "" {
		base, _ = strconv.Atoi(v)
	}
	p, err := New(Options{
		Name: "cmpc-probe-" + strconv.Itoa(os.Getpid()), Kwokctl: probeBinary(t, root, "kwokctl"), KwokController: probeBinary(t, root, "kwok"),
		KubeAPIServer: probeBinary(t, root, "kube-apiserver"), KubeControllerManager: probeBinary(t, root, "kube-controller-manager"),
		KubeScheduler: probeBinary(t, root, "kube-scheduler"), Etcd: probeBinary(t, root, "etcd"),
		KubeVersion: "v1.34.4", EtcdVersion: "v3.6.5", Dir: t.TempDir(), PortBase: base, Wait: 3 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Cleanup(func() {
		if err := p.Destroy(context.Background()); err != nil {
			t.Errorf("destroy: %v", err)
		}
	})
	start := time.Now()
	c, err := p.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster up in %.1fs", time.Since(start).Seconds())
	// Nothing of the cluster may be reachable from the host's network:
	// kwokctl binds to 0.0.0.0 unless told otherwise (etcd has no auth).
	for purpose, port := range Ports(base) {
		for _, addr := range listeners(t, port) {
			if addr != "127.0.0.1" {
				t.Errorf("%s listens on %s:%d, want 127.0.0.1 only", purpose, addr, port)
			}
		}
	}
	// client-go's default 5 requests a second would make the timings.
	c.REST.QPS, c.REST.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(c.REST)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.REST)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "probe"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res := func(obj *unstructured.Unstructured) dynamic.ResourceInterface {
		return dyn.Resource(probeGVR[obj.GetKind()]).Namespace(ns)
	}
	objs := map[string]*unstructured.Unstructured{}
	created := map[string]time.Time{}
	for _, pc := range probeCases {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(pc.yaml), &obj.Object); err != nil {
			t.Fatalf("%s: %v", pc.name, err)
		}
		if _, err := res(obj).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", pc.name, err)
		}
		objs[pc.name], created[pc.name] = obj, time.Now()
	}
	// Poll until every case has its verdict, then hold on a while so that a
	// case wanted unhealthy has had the time to turn (wrongly) healthy.
	reached := map[string]time.Duration{}
	last := map[string]health.HealthStatusCode{}
	deadline, hold := time.Now().Add(90*time.Second), time.Time{}
	for time.Now().Before(deadline) {
		for _, pc := range probeCases {
			got, err := res(objs[pc.name]).Get(ctx, pc.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			h, err := health.GetResourceHealth(got, nil)
			if err != nil || h == nil {
				last[pc.name] = "error"
				continue
			}
			last[pc.name] = h.Status
			if _, ok := reached[pc.name]; !ok && h.Status == pc.want {
				reached[pc.name] = time.Since(created[pc.name])
			}
		}
		if len(reached) == len(probeCases) && hold.IsZero() {
			hold = time.Now().Add(15 * time.Second)
		}
		if !hold.IsZero() && time.Now().After(hold) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, pc := range probeCases {
		d, ok := reached[pc.name]
		t.Logf("%-22s want %-11s got %-11s reached after %v", pc.name, pc.want, last[pc.name], map[bool]any{true: d.Round(time.Millisecond), false: "never"}[ok])
		if last[pc.name] != pc.want {
			t.Errorf("%s: health %s, want %s", pc.name, last[pc.name], pc.want)
		}
	}
	// Each served kind alone, for its latency: a copy created and polled by
	// itself.
	for _, pc := range probeCases {
		if pc.want != health.HealthStatusHealthy || strings.HasPrefix(pc.name, "hpa") || pc.name == "svc-clusterip" {
			continue
		}
		obj := objs[pc.name].DeepCopy()
		name := pc.name + "-t"
		obj.SetName(name)
		if obj.GetKind() == "StatefulSet" || obj.GetKind() == "DaemonSet" || obj.GetKind() == "Deployment" {
			_ = unstructured.SetNestedStringMap(obj.Object, map[string]string{"app": name}, "spec", "selector", "matchLabels")
			_ = unstructured.SetNestedStringMap(obj.Object, map[string]string{"app": name}, "spec", "template", "metadata", "labels")
		}
		start := time.Now()
		if _, err := res(obj).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
		waitFor(t, name+" "+string(pc.want), start, func() bool {
			got, err := res(obj).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false
			}
			h, err := health.GetResourceHealth(got, nil)
			return err == nil && h != nil && h.Status == pc.want
		})
	}
	ing, _ := res(objs["ing-default"]).Get(ctx, "ing-default", metav1.GetOptions{})
	cls, _, _ := unstructured.NestedString(ing.Object, "spec", "ingressClassName")
	t.Logf("ing-default's class after admission: %q", cls)

	// A Service no longer of type LoadBalancer loses its address (the API
	// server drops it).
	start = time.Now()
	patch := []byte(`{"spec":{"type":"ClusterIP"}}`)
	if got, err := res(objs["svc-lb"]).Patch(ctx, "svc-lb", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Errorf("svc-lb to ClusterIP: %v", err)
	} else {
		lb, _, _ := unstructured.NestedFieldNoCopy(got.Object, "status", "loadBalancer")
		t.Logf("svc-lb's status.loadBalancer as the update left it: %v", lb)
	}
	waitFor(t, "svc-lb's address removed", start, func() bool {
		s, err := cs.CoreV1().Services(ns).Get(ctx, "svc-lb", metav1.GetOptions{})
		return err == nil && len(s.Status.LoadBalancer.Ingress) == 0
	})
	// The PV controller completes the binding of the provisioned volume.
	pvc, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "pvc-class", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pv, err := cs.CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{}); err != nil || pv.Status.Phase != corev1.VolumeBound {
		t.Errorf("pvc-class's volume %q: %v, want Bound (%v)", pvc.Spec.VolumeName, pv.Status.Phase, err)
	}
	// A deleted claim's volume is deleted, as the class's reclaimPolicy asks.
	start = time.Now()
	if err := cs.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, "pvc-class", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pvc-class's volume "+pvc.Spec.VolumeName+" deleted", start, func() bool {
		_, err := cs.CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	// kwok-controller logs a stage it cannot match or play.
	logs := t.TempDir()
	if err := p.ExportLogs(ctx, logs); err != nil {
		t.Errorf("exporting logs: %v", err)
	}
	kc, _ := filepath.Glob(filepath.Join(logs, "*", "components", "kwok-controller.log"))
	if len(kc) == 0 {
		out, _ := exec.Command("find", logs).Output()
		t.Errorf("no kwok-controller.log under %s: %s", logs, out)
	}
	// kwokctl passed kwok-controller our stages (it saves them in kwok.yaml).
	saved, _ := filepath.Glob(filepath.Join(logs, "*", "kwok.yaml"))
	for _, f := range saved {
		data, _ := os.ReadFile(f)
		for _, name := range []string{"pod-ready", "node-initialize", "ingress-address", "pvc-provision"} {
			if !strings.Contains(string(data), "name: "+name+"\n") {
				t.Errorf("%s has no stage %s", f, name)
			}
		}
	}
	for _, f := range kc {
		data, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(data), "\n") {
			// waitForReady logs its tries while the API server starts.
			if (strings.Contains(line, "ERROR") || strings.Contains(strings.ToLower(line), "failed")) && !strings.Contains(line, "waitForReady") {
				t.Errorf("kwok-controller: %s", line)
			}
		}
	}
	evs, _ := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	for _, e := range evs.Items {
		if strings.HasPrefix(e.InvolvedObject.Name, "pvc-") || strings.HasPrefix(e.InvolvedObject.Name, "svc-") || strings.HasPrefix(e.InvolvedObject.Name, "ing-") {
			t.Logf("event %s/%s %s: %s", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
}

func waitFor(t *testing.T, what string, start time.Time, ok func() bool) {
	t.Helper()
	for time.Since(start) < 60*time.Second {
		if ok() {
			t.Logf("%s after %v", what, time.Since(start).Round(time.Millisecond))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("%s: not within 60s", what)
}

// listeners returns the addresses a socket listens on at port, read from
// /proc/net/tcp and tcp6 ("0.0.0.0", "::", "127.0.0.1", ...).
func listeners(t *testing.T, port int) []string {
	t.Helper()
	var out []string
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			host, hexPort, _ := strings.Cut(f[1], ":")
			if p, _ := strconv.ParseUint(hexPort, 16, 16); int(p) != port {
				continue
			}
			b := make([]byte, len(host)/2)
			for i := range b {
				v, _ := strconv.ParseUint(host[2*i:2*i+2], 16, 8)
				b[i] = byte(v)
			}
			// /proc prints each 32-bit word in host (little-endian) order.
			for w := 0; w+4 <= len(b); w += 4 {
				b[w], b[w+1], b[w+2], b[w+3] = b[w+3], b[w+2], b[w+1], b[w]
			}
			out = append(out, net.IP(b).String())
		}
	}
	return out
}

// TestControllerManagerStartedAgain kills kube-controller-manager as soon as
// the cluster answers, as its own exit does when the API server is not
// healthy in time: Settle must start it again and wait for its controllers
// (the default ServiceAccount), and say so. CMPC_KWOK_PROBE_TOOLS as above.
func TestControllerManagerStartedAgain(t *testing.T) {
	root := os.Getenv("CMPC_KWOK_PROBE_TOOLS")
	if root == "" {
		t.Skip("CMPC_KWOK_PROBE_TOOLS not set")
	}
	name := "cmpc-probe-kcm-" + strconv.Itoa(os.Getpid())
	p, err := New(Options{
		Name: name, Kwokctl: probeBinary(t, root, "kwokctl"), KwokController: probeBinary(t, root, "kwok"),
		KubeAPIServer: probeBinary(t, root, "kube-apiserver"), KubeControllerManager: probeBinary(t, root, "kube-controller-manager"),
		KubeScheduler: probeBinary(t, root, "kube-scheduler"), Etcd: probeBinary(t, root, "etcd"),
		KubeVersion: "v1.34.4", EtcdVersion: "v3.6.5", Dir: t.TempDir(), PortBase: 28100, Wait: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Destroy(context.Background()); err != nil {
			t.Errorf("destroy: %v", err)
		}
	})
	ctx := context.Background()
	c, err := p.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	pid, err := os.ReadFile(filepath.Join(home, ".kwok", "clusters", name, "pids", "kube-controller-manager.pid"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("kill", "-9", strings.TrimSpace(string(pid))).CombinedOutput(); err != nil {
		t.Fatalf("kill: %v: %s", err, out)
	}
	if err := c.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	var said bool
	for _, s := range c.Steps {
		said = said || strings.Contains(s.Name, "started again after exiting: kube-controller-manager")
	}
	if !said {
		t.Errorf("steps %+v do not say kube-controller-manager was started again", c.Steps)
	}
	cs, err := kubernetes.NewForConfig(c.REST)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Errorf("no default ServiceAccount after Settle: %v", err)
	}
}
