package main

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// podDeletionWorkers is how many deletions are in flight at once (a kubelet deletes its own pods; here one
// process stands in for every simulated node's kubelet).
const podDeletionWorkers = 8

// A pod incarnation to delete: its name and the uid it must still have.
type podRef struct {
	namespace string
	name      string
	uid       types.UID
}

// startPodDeletion finishes the graceful deletion of pods on simulated nodes as a kubelet does: once a pod
// has a deletionTimestamp it is deleted with grace 0 and a precondition on its uid (the kubelet's status
// manager sends the same), so an event about an earlier pod of a name can never delete its successor.
//
// It stands in for KWOK's pod-delete stage, which deletes by name alone. When KWOK's queue ran seconds
// behind (a restart recreating 256 pods at once under the same names), a stage played on an earlier pod
// deleted its replacement a few seconds after creation, and again for each replacement made after that:
// the job's pods were recreated over and over and the restart never finished. It stops with ctx.
func startPodDeletion(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(rest.CopyConfig(cfg), "pod-deletion"))
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	nodes := factory.Core().V1().Nodes().Lister()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[podRef]())
	enqueue := func(obj interface{}) {
		pod, ok := obj.(*corev1.Pod)
		if ok && pod.DeletionTimestamp != nil && pod.Spec.NodeName != "" {
			queue.Add(podRef{namespace: pod.Namespace, name: pod.Name, uid: pod.UID})
		}
	}
	_, err = factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj interface{}) { enqueue(obj) },
	})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()

	simulated := func(ref podRef) (bool, error) {
		pod, err := factory.Core().V1().Pods().Lister().Pods(ref.namespace).Get(ref.name)
		if apierrors.IsNotFound(err) || (err == nil && pod.UID != ref.uid) {
			return false, nil // gone, or already replaced: nothing of this incarnation is left to delete
		}
		if err != nil {
			return false, err
		}
		node, err := nodes.Get(pod.Spec.NodeName)
		if apierrors.IsNotFound(err) {
			// A node made a moment ago may not be in the cache yet: ask the apiserver before leaving the pod.
			node, err = client.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		if err != nil {
			return false, err
		}
		return isSimulated(node), nil
	}
	deleteOne := func(ref podRef) error {
		ok, err := simulated(ref)
		if err != nil || !ok {
			return err
		}
		opts := *metav1.NewDeleteOptions(0)
		opts.Preconditions = metav1.NewUIDPreconditions(string(ref.uid))
		err = client.CoreV1().Pods(ref.namespace).Delete(ctx, ref.name, opts)
		// NotFound: already gone; Conflict: the name now belongs to a newer pod, which is not ours to delete.
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}
	for i := 0; i < podDeletionWorkers; i++ {
		go func() {
			for {
				ref, quit := queue.Get()
				if quit {
					return
				}
				if err := deleteOne(ref); err != nil && ctx.Err() == nil {
					klog.Warningf("pod deletion: %s/%s: %v (retrying)", ref.namespace, ref.name, err)
					queue.AddRateLimited(ref)
				} else {
					queue.Forget(ref)
				}
				queue.Done(ref)
			}
		}()
	}
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	factory.WaitForCacheSync(waitCtx.Done())
	return nil
}

// isSimulated says whether KWOK plays the node (the annotation kwokctl clusters select on).
func isSimulated(node *corev1.Node) bool {
	return node.Annotations[kwokNodeAnnotation] == kwokNodeAnnotationValue
}
