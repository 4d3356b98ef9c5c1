package conformance

// All is the catalogue: every check, in report order. Checks are listed here,
// not registered from init(), so the catalogue is one readable list.
func All() []Check {
	return []Check{
		SmokeDiscoveredAppSyncs, SmokeResourcesExist, SmokeNamedPluginSyncs,
		annStatic, annDynamic, annBoth, annDynamicGetsParameters, annUntypedIsString,
		annDynamicFails, annDynamicInvalidJSON, annNameless, annOrder,
		envParametersJSON, envParamNames, envEscaping, envCollision, envAllKinds,
		envPluginEnv, envBuildEnv, envEmptyValues, envBuildEnvWins,
		secHostileValues, secLargeValue,
		pruneCascadeDelete, pruneDroppedResource, pruneFailingPlugin, pruneTracking,
		localServerSideDiff, localClientSideDiff, localSync,
		svcAnnouncements, svcDynamicParameters, svcEscaping, svcBuildEnv, svcHostile, svcCascadeDelete, svcPrune,
		svcRestart, svcNativeDiscovery, svcOutageIsolated,
		outLastLine,
		faultHang, faultCrash, faultInvalidYAML, faultHuge, faultExecTimeout, pruneEmptyOutput,
		discFileNameGlob, discFileNameFirst, discFindGlob, discGlobFirst, discFindCommand, discFindCommandEnv, discFindCommandRoot, discNamedOnly, discFindCommandHang,
		initRunsFirst, initOutputIgnored, initFailureSurfaces, modeDefault, modePreserved, linksInside, linksLooping, linksLeaving, linksThroughParent, tarExclusions, generatePathsOnly, generatePathsListed, errorCache, streamedLimits, multiSource, hydratePlugin,
		credsHTTPS, credsTemplate, credsSSH, credsWithheld,
		helmRendersLikeNative, helmAnnouncesLikeNative, helmErrorsLikeNative, helmParameterChange, helmHostileValues,
		upgSyncedAndHealthy, upgSameManifests, upgNothingRecreated, upgParametersKept, upgKnownChanges,
		// Extensions: resource customizations of argocd-cm, judged live.
		extHealth, extActions, extRBAC, extNewObject, extHostile, extUILoads, extUIKinds, extUIReact, extUIOrigin, extUIVersion,
		// Customizations: how Argo CD applies them, with the harness's own.
		custOpenLibs, custOverridesBuiltIn,
		// The plugin profile (certify): judged on the subject's own samples.
		plugConfigRead, plugSamplesSync, plugExpectedOutput, plugStable, plugDiscovers, plugHostile, plugFailing, plugNotForeign, plugTimeBudget, plugAnnouncements, plugNoLeftovers, plugParameterReaches, plugCredentialsKept, plugValuesIntact,
	}
}
