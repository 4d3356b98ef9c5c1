// The reference extension's UI: a "Widget" tab on cmpc.example.com/Widget
// objects, showing its gears and conditions. As Argo CD's UI extensions
// are built, React is the page's (window.React: a bundler's external), and
// it reads only what Argo CD passes (the resource), fetching nothing.
((window) => {
  const React = window.React;
  const h = React.createElement;
  const WidgetTab = ({resource}) => {
    const spec = (resource && resource.spec) || {};
    const conditions = ((resource && resource.status) || {}).conditions || [];
    return h('div', {className: 'cmpc-widget'},
      h('h4', null, `${spec.gears === undefined ? 'no' : spec.gears} gears${spec.paused ? ' (paused)' : ''}`),
      h('ul', null, conditions.map((c) =>
        h('li', {key: c.type}, `${c.type}: ${c.status}${c.message ? ' (' + c.message + ')' : ''}`))));
  };
  window.extensionsAPI.registerResourceExtension(WidgetTab, 'cmpc.example.com', 'Widget', 'Widget', {icon: 'fa fa-cogs'});
})(window);
