-- Reads the Ready condition as if every Cog had a status already.
local hs = {status = "Progressing", message = "Waiting for the cog to report Ready"}
for _, c in ipairs(obj.status.conditions) do
  if c.type == "Ready" and c.status == "True" then
    hs.status = "Healthy"
    hs.message = c.message
  end
end
return hs
