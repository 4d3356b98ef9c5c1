if obj.spec == nil then
  obj.spec = {}
end
obj.spec.paused = true
return obj
