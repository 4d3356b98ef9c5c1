// Copied from an example for Deployments and never adapted: its tab is
// registered for apps/Deployment, a kind this extension does not declare.
((window) => {
  const h = window.React.createElement;
  const GizmoTab = ({resource}) => h('div', null, `gizmo ${resource.metadata.name}`);
  window.extensionsAPI.registerResourceExtension(GizmoTab, 'apps', 'Deployment', 'Gizmo');
})(window);
