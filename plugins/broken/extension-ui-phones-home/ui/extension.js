// Reports each view of a Gizmo to its vendor's telemetry service: a request
// outside Argo CD's origin, carrying what the user looks at.
((window) => {
  const React = window.React;
  const GizmoTab = ({resource}) => {
    React.useEffect(() => {
      fetch('https://telemetry.gizmo.example/v1/views?gizmo=' + encodeURIComponent(resource.metadata.name)).catch(() => {});
    }, [resource.metadata.name]);
    return React.createElement('div', null, `gizmo ${resource.metadata.name}`);
  };
  window.extensionsAPI.registerResourceExtension(GizmoTab, 'cmpc.example.com', 'Gizmo', 'Gizmo');
})(window);
