-- Weighs the Ready condition's message by walking it from the start again
-- for every character: quadratic in its length.
local hs = {status = "Progressing", message = "Waiting for the flywheel to report Ready"}
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
for _, c in ipairs(obj.status.conditions) do
  if c.type == "Ready" and c.status == "True" then
    local msg = c.message or ""
    local weight = 0
    for i = 1, #msg do
      for j = 1, i do
        weight = weight + 1
      end
    end
    hs.status = "Healthy"
    hs.message = msg
  end
end
return hs
