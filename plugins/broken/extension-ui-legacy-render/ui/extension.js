// Written for the React of Argo CD 3.4 and before (16): it mounts a banner
// with ReactDOM.render while it loads. react-dom 19, Argo CD's UI from 3.5
// on, has no render (createRoot moved to react-dom/client, which Argo CD
// does not share): there the file throws and registers nothing.
((window) => {
  const h = window.React.createElement;
  const banner = document.createElement('div');
  document.body.appendChild(banner);
  window.ReactDOM.render(h('span', null, 'gizmos ahead'), banner);
  const GizmoTab = ({resource}) => h('div', null, `gizmo ${resource.metadata.name}`);
  window.extensionsAPI.registerResourceExtension(GizmoTab, 'cmpc.example.com', 'Gizmo', 'Gizmo');
})(window);
