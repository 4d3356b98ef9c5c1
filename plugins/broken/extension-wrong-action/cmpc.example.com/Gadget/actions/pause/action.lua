-- Sets the wrong field: the Gadget's operator reads spec.paused.
if obj.spec == nil then
  obj.spec = {}
end
obj.spec.pause = true
return obj
