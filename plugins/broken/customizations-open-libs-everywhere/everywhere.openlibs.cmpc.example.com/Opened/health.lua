-- Says whether Argo CD gave this script Lua's open libraries. The base
-- library, table, package and a safe os are always there; string, math and
-- io only with useOpenLibs.
local hs = {}
hs.status = "Healthy"
if string == nil and math == nil and io == nil then
  hs.message = "ran without the open libraries"
else
  hs.message = "ran with the open libraries"
end
return hs
