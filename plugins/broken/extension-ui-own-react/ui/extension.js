// Built without marking React external: the bundle carries a createElement
// of its own (here in its smallest form), so its elements are not made by
// the React of Argo CD's page, which then cannot render them.
((window) => {
  const REACT_ELEMENT = Symbol.for('react.element');
  const createElement = (type, props, ...children) =>
    ({$$typeof: REACT_ELEMENT, type, key: null, ref: null, props: {...props, children}, _owner: null});
  const GizmoTab = ({resource}) => createElement('div', {className: 'gizmo'}, createElement('b', null, resource.metadata.name));
  window.extensionsAPI.registerResourceExtension(GizmoTab, 'cmpc.example.com', 'Gizmo', 'Gizmo');
})(window);
