package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	configv1alpha1 "sigs.k8s.io/kwok/pkg/apis/config/v1alpha1"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/client/clientset/versioned"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/controllers"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/client"
)

const (
	// Nodes carrying this annotation are simulated; it is the selector kwokctl clusters use.
	kwokNodeAnnotation      = "kwok.x-k8s.io/node"
	kwokNodeAnnotationValue = "fake"
	kwokNodeSelector        = kwokNodeAnnotation + "=" + kwokNodeAnnotationValue
	podCIDR                 = "10.244.0.0/16"
	// As kwokctl: nodes heartbeat through Leases in kube-node-lease, and their Ready condition is set once.
	nodeLeaseDurationSeconds = 40
)

// startKwok runs KWOK's controllers in this process, set up as the kwok binary sets them up (pkg/kwok/cmd)
// with the stages kwokctl installs by default: node-initialize and node-heartbeat-with-lease for nodes;
// pod-ready and pod-complete for pods. Its pod-delete stage is left out: startPodDeletion finishes a pod's
// deletion instead, as a kubelet does (pod_deletion.go says why). They stop when ctx is cancelled.
func startKwok(ctx context.Context, kubeconfigPath string, cfg *rest.Config) error {
	ctx = log.NewContext(ctx, log.NewLogger(os.Stderr, log.LevelWarn))

	// KWOK's clientset wants a kubeconfig file.
	if err := writeKubeconfig(kubeconfigPath, cfg.Host, cfg.CAData, cfg.BearerToken); err != nil {
		return err
	}
	clients, err := client.NewClientset("", kubeconfigPath)
	if err != nil {
		return err
	}
	restCfg, err := clients.ToRESTConfig()
	if err != nil {
		return err
	}
	dynamicClient, err := clients.ToDynamicClient()
	if err != nil {
		return err
	}
	restMapper, err := clients.ToRESTMapper()
	if err != nil {
		return err
	}
	restClient, err := rest.RESTClientFor(restCfg)
	if err != nil {
		return err
	}
	typedClient, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	kwokClient, err := versioned.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	stages, err := defaultStages()
	if err != nil {
		return err
	}
	id, err := controllers.Identity()
	if err != nil {
		return err
	}

	defaults := &configv1alpha1.KwokConfiguration{}
	configv1alpha1.SetObjectDefaults_KwokConfiguration(defaults)
	opts := defaults.Options
	ctr, err := controllers.NewController(controllers.Config{
		Clock:                             clock.RealClock{},
		DynamicClient:                     dynamicClient,
		RESTClient:                        restClient,
		RESTMapper:                        restMapper,
		ImpersonatingDynamicClient:        clients.ToImpersonatingDynamicClient(),
		ImpersonatingTypedClient:          clients.ToImpersonatingTypedClient(),
		TypedClient:                       typedClient,
		TypedKwokClient:                   kwokClient,
		ManageNodesWithAnnotationSelector: kwokNodeSelector,
		CIDR:                              podCIDR,
		NodeIP:                            "127.0.0.1", // agents of simulated pods run on this machine
		LocalStages:                       stages,
		PodPlayStageParallelism:           opts.PodPlayStageParallelism,
		NodePlayStageParallelism:          opts.NodePlayStageParallelism,
		NodeLeaseParallelism:              opts.NodeLeaseParallelism,
		NodeLeaseDurationSeconds:          nodeLeaseDurationSeconds,
		PodsOnNodeSyncParallelism:         opts.PodsOnNodeSyncParallelism,
		EnablePodsOnNodeSyncListPager:     *opts.EnablePodsOnNodeSyncListPager,
		EnablePodsOnNodeSyncStreamWatch:   *opts.EnablePodsOnNodeSyncStreamWatch,
		ID:                                id,
	})
	if err != nil {
		return err
	}
	return ctr.Start(ctx)
}

func defaultStages() (map[internalversion.StageResourceRef][]*internalversion.Stage, error) {
	groups := map[internalversion.StageResourceRef][]*internalversion.Stage{}
	for _, raw := range []string{
		nodefast.DefaultNodeInit,
		nodeheartbeat.DefaultNodeHeartbeatWithLease,
		podfast.DefaultPodReady,
		podfast.DefaultPodComplete,
	} {
		stage, err := config.UnmarshalWithType[*internalversion.Stage](raw)
		if err != nil {
			return nil, fmt.Errorf("kwok stage: %w", err)
		}
		groups[stage.Spec.ResourceRef] = append(groups[stage.Spec.ResourceRef], stage)
	}
	return groups, nil
}
