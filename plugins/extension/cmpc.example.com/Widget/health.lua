-- A Widget is Healthy once its Ready condition is True, Degraded when Ready
-- is False for the reason Failed, and Progressing until then. Only Lua's
-- base library is used: Argo CD runs a customization's health.lua without
-- the open libraries unless argocd-cm says useOpenLibs.
local hs = {status = "Progressing", message = "Waiting for the widget to report Ready"}
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
for _, c in ipairs(obj.status.conditions) do
  if c.type == "Ready" then
    if c.status == "True" then
      hs.status = "Healthy"
    elseif c.reason == "Failed" then
      hs.status = "Degraded"
    end
    hs.message = c.message or hs.message
    return hs
  end
end
return hs
