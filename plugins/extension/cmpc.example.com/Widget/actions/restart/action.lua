-- Restarts the widget: its operator starts again when the count changes.
if obj.spec == nil then
  obj.spec = {}
end
obj.spec.restarts = (obj.spec.restarts or 0) + 1
return obj
