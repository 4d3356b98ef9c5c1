package kwok

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ClassName names the default IngressClass and StorageClass the simulated
// controllers of stages/controllers.yaml serve. An Ingress or a claim of any
// other class stays unserved, as in a cluster without that class's controller.
const ClassName = "cmp-conformance"

// Controller names, as the stages match them.
const (
	ingressController = "kwok.x-k8s.io/ingress"
	volumeProvisioner = "kwok.x-k8s.io/volume"
	// What the DefaultStorageClass admission plugin looks for (k8s.io/api
	// names only the IngressClass one).
	isDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"
)

// CreateClasses makes the default IngressClass and StorageClass. They must
// exist before the samples: the DefaultIngressClass and DefaultStorageClass
// admission plugins name the default class only on create. Existing ones are
// left as they are.
func CreateClasses(ctx context.Context, cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	isDefault := func(key string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: ClassName, Annotations: map[string]string{key: "true"}}
	}
	ic := &networkingv1.IngressClass{
		ObjectMeta: isDefault(networkingv1.AnnotationIsDefaultIngressClass),
		Spec:       networkingv1.IngressClassSpec{Controller: ingressController},
	}
	if _, err := cs.NetworkingV1().IngressClasses().Create(ctx, ic, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating IngressClass %s: %w", ClassName, err)
	}
	// Immediate binding, so that a claim no pod uses is Bound too, as with
	// most cloud default classes (WaitForFirstConsumer would leave it Pending).
	reclaim, binding := corev1.PersistentVolumeReclaimDelete, storagev1.VolumeBindingImmediate
	sc := &storagev1.StorageClass{
		ObjectMeta:        isDefault(isDefaultStorageClass),
		Provisioner:       volumeProvisioner,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &binding,
	}
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating StorageClass %s: %w", ClassName, err)
	}
	return nil
}
