-- Pauses the widget: its operator stops turning its gears.
if obj.spec == nil then
  obj.spec = {}
end
obj.spec.paused = true
return obj
