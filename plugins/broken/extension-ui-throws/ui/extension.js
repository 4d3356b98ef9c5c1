// Calls a register function Argo CD does not have (registerResourceTab, not
// registerResourceExtension): it throws while it loads and registers nothing.
((window) => {
  const h = window.React.createElement;
  const GizmoTab = ({resource}) => h('div', null, `gizmo ${resource.metadata.name}`);
  window.extensionsAPI.registerResourceTab(GizmoTab, 'cmpc.example.com', 'Gizmo', 'Gizmo');
})(window);
