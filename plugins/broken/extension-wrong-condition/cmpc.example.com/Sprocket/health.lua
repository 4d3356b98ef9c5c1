-- Looks for the wrong condition: the Sprocket reports Ready, not Available.
local hs = {status = "Progressing", message = "Waiting for the sprocket to become available"}
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Available" and c.status == "True" then
      hs.status = "Healthy"
      hs.message = c.message
    end
  end
end
return hs
