"""The per-sample viewer's page template: style and script, self-contained (no external resource).

The rows travel as JSON inside the page; the script renders one page of rows at a time (100 by default), so the
first render stays fast with tens of thousands of samples. Filters, sort order, page and the selected sample live
in the URL fragment (``#task=AMIC&outcome=incorrect&q=dog&sample=AMIC/12``), so any view can be linked to. The
page records how long its script took to first render in ``body[data-render-ms]``, the time from navigation
start to that point in ``body[data-ready-ms]``, and any script error in ``html[data-errors]``; the browser tests
and the benchmark read them.
"""

from __future__ import annotations

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.2rem;color:#1d2330;font-size:14px}
h1{font-size:1.4rem;margin:.2rem 0 .6rem}
.bar{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin-bottom:.6rem}
.bar select,.bar input{font-size:.9rem;padding:.15rem .3rem}.bar input[type=search]{min-width:16rem}
#status{color:#444}.pager button{margin:0 .15rem}
table{border-collapse:collapse;width:100%;table-layout:fixed}
col.c-task{width:7%}col.c-key{width:5%}col.c-outcome{width:8%}col.c-score{width:5%}col.c-method{width:7%}
col.c-question{width:32%}col.c-answer{width:14%}col.c-raw{width:16%}col.c-latency{width:6%}th,td{border:1px solid #d7dce5;padding:.25rem .4rem;vertical-align:top}
th{background:#eef1f6;text-align:left;position:sticky;top:0}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.sample{cursor:pointer}tr.sample:hover{background:#f6f8fb}tr.selected{background:#fff6d6}
td{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}tr.detail td{white-space:normal}
.o{padding:0 .4rem;border-radius:.6rem;font-size:.8rem;white-space:nowrap}
.o-correct{background:#d6f0dd}.o-partial{background:#fdecc8}.o-incorrect{background:#f8d4d4}
.o-unparsed{background:#e3dcf5}.o-failed{background:#333;color:#fff}.o-missing,.o-not_scored{background:#e6e6e6}
tr.detail td{background:#fbfcfe}pre{white-space:pre-wrap;word-break:break-word;margin:.2rem 0 .6rem;
font-size:.85rem;background:#f3f5f9;padding:.4rem;border-radius:.3rem}
.media{display:flex;flex-wrap:wrap;gap:.6rem;margin:.3rem 0}.media img,.media video{max-width:360px;max-height:240px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:0}dt{font-weight:600}dd{margin:0}
.note{color:#8a3b12;font-size:.85rem}
"""

SCRIPT = r"""
(function(){
'use strict';
var t0=performance.now();
var DATA=JSON.parse(document.getElementById('samples').textContent);
var META=JSON.parse(document.getElementById('meta').textContent);
var rows=DATA.rows, PAGE=100, state={};
var el=function(id){return document.getElementById(id);};
function esc(s){return String(s==null?'':s).replace(/[&<>"']/g,function(c){
  return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c];});}
function show(v){return v==null?'':(typeof v==='string'?v:JSON.stringify(v));}
rows.forEach(function(r,i){r._i=i;r._id=r.task+'/'+r.key;
  r._hay=(r.task+' '+r.key+' '+r.question+' '+show(r.answer)+' '+show(r.raw)+' '+show(r.refined)+' '+show(r.error)).toLowerCase();});
var byId={};rows.forEach(function(r){byId[r._id]=r;});
function fill(id,values){var s=el(id);values.forEach(function(v){var o=document.createElement('option');o.value=v;o.textContent=v;s.appendChild(o);});}
function uniq(key){var seen={};rows.forEach(function(r){var v=r[key];if(v!=null)seen[v]=1;});return Object.keys(seen);}
fill('f-task',META.tasks.filter(function(t){return uniq('task').indexOf(t)>=0;}));
fill('f-outcome',META.outcomes);fill('f-method',uniq('method').sort());
function readHash(){var h={};location.hash.replace(/^#/,'').split('&').forEach(function(p){
  if(!p)return;var k=p.split('=')[0],v=p.slice(k.length+1);h[decodeURIComponent(k)]=decodeURIComponent(v.replace(/\+/g,' '));});
  state={task:h.task||'',outcome:h.outcome||'',method:h.method||'',q:h.q||'',sort:h.sort||'order',
    page:parseInt(h.page||'1',10)||1,sample:h.sample||''};
  el('f-task').value=state.task;el('f-outcome').value=state.outcome;el('f-method').value=state.method;
  el('f-q').value=state.q;el('f-sort').value=state.sort;}
function writeHash(){var parts=[];['task','outcome','method','q','sort','page','sample'].forEach(function(k){
  var v=state[k];if(v&&!(k==='sort'&&v==='order')&&!(k==='page'&&v===1))parts.push(k+'='+encodeURIComponent(v));});
  var h=parts.length?'#'+parts.join('&'):'';if(location.hash!==h)history.replaceState(null,'',h||location.pathname);}
function score(r){var s=r.scores&&r.scores[META.profile];return s==null?null:s;}
function matches(){var q=state.q.toLowerCase();return rows.filter(function(r){
  return (!state.task||r.task===state.task)&&(!state.outcome||r.outcome===state.outcome)&&
    (!state.method||r.method===state.method)&&(!q||r._hay.indexOf(q)>=0);});}
function sorted(list){var k=state.sort;if(k==='order')return list;var c=list.slice();
  var val={'score-asc':function(r){var s=score(r);return s==null?2:s;},'score-desc':function(r){var s=score(r);return s==null?2:-s;},
    'latency':function(r){return -(r.latency_s||0);},'tokens':function(r){return -((r.usage&&r.usage.total_tokens)||0);}}[k];
  c.sort(function(a,b){return val(a)-val(b)||a._i-b._i;});return c;}
function media(r){return (r.media||[]).map(function(m){var src=META.media_base+m.path.split('/').map(encodeURIComponent).join('/');
  var label=esc(m.path)+(m.channel!=null?' (channel '+m.channel+')':'');
  if(m.outside)return '<figure class="outside"><figcaption>'+label+' ('+esc(m.kind)+', outside the data root: not linked)</figcaption></figure>';
  if(m.kind==='audio')return '<figure><audio controls preload="none" src="'+esc(src)+'"></audio><figcaption>'+label+'</figcaption></figure>';
  if(m.kind==='image')return '<figure><img loading="lazy" alt="'+esc(m.path)+'" src="'+esc(src)+'"><figcaption>'+label+'</figcaption></figure>';
  return '<figure><video controls preload="none" src="'+esc(src)+'"></video><figcaption>'+label+'</figcaption></figure>';}).join('');}
function detail(r){var u=r.usage||{};return '<tr class="detail" data-id="'+esc(r._id)+'"><td colspan="9"><dl>'+
  '<dt>Question as sent</dt><dd><pre>'+esc((r.system?'[system] '+r.system+'\n\n':'')+r.question)+'</pre></dd>'+
  (r.media&&r.media.length?'<dt>Media</dt><dd><div class="media">'+media(r)+'</div></dd>':'')+
  '<dt>Ground truth</dt><dd><pre>'+esc(show(r.answer))+'</pre></dd>'+
  '<dt>Raw answer</dt><dd><pre>'+esc(show(r.raw))+'</pre></dd>'+
  '<dt>Refined</dt><dd><pre>'+esc(show(r.refined))+'</pre> method: '+esc(r.method)+'</dd>'+
  '<dt>Scores</dt><dd>'+esc(Object.keys(r.scores||{}).map(function(p){return p+' '+show(r.scores[p]);}).join(', ')||'not scored')+'</dd>'+
  (r.note?'<dt>Why this score</dt><dd class="note">'+esc(r.note)+'</dd>':'')+
  (r.error?'<dt>Failure</dt><dd><pre>'+esc(r.error)+'</pre></dd>':'')+
  '<dt>Request</dt><dd>latency '+esc(r.latency_s)+' s, attempts '+esc(r.attempts)+', tokens '+esc(show(u.prompt_tokens))+' in / '+
  esc(show(u.completion_tokens))+' out</dd><dt>Link</dt><dd><a href="#sample='+encodeURIComponent(r._id)+'">#sample='+esc(r._id)+'</a></dd>'+
  '</dl></td></tr>';}
function fmt(s){return s==null?'–':(100*s).toFixed(1);}
function render(){var list=sorted(matches());var pages=Math.max(1,Math.ceil(list.length/PAGE));
  if(state.sample&&byId[state.sample]){var at=list.indexOf(byId[state.sample]);if(at>=0)state.page=Math.floor(at/PAGE)+1;}
  state.page=Math.min(Math.max(1,state.page),pages);
  var slice=list.slice((state.page-1)*PAGE,state.page*PAGE),html=[];
  slice.forEach(function(r){var sel=r._id===state.sample;
    html.push('<tr class="sample'+(sel?' selected':'')+'" id="s-'+esc(r._id)+'" data-id="'+esc(r._id)+'" data-outcome="'+esc(r.outcome)+'">'+
      '<td>'+esc(r.task)+'</td><td>'+esc(r.key)+'</td><td><span class="o o-'+esc(r.outcome)+'">'+esc(r.outcome)+'</span></td>'+
      '<td class="num">'+fmt(score(r))+'</td><td>'+esc(r.method)+'</td><td class="text">'+(r.note?'<span class="note">'+esc(r.note)+'</span> ':'')+esc(r.question)+'</td>'+
      '<td class="text">'+esc(show(r.answer))+'</td><td class="text">'+esc(show(r.raw))+'</td><td class="num">'+
      (r.latency_s==null?'':Number(r.latency_s).toFixed(2))+'</td></tr>');
    if(sel)html.push(detail(r));});
  el('rows').innerHTML=html.join('');
  el('status').textContent=list.length+' of '+rows.length+' samples match; page '+state.page+' of '+pages;
  document.body.setAttribute('data-matches',String(list.length));
  el('prev').disabled=state.page<=1;el('next').disabled=state.page>=pages;writeHash();
  if(state.sample){var s=document.getElementById('s-'+state.sample);if(s&&s.scrollIntoView)s.scrollIntoView({block:'center'});}}
function onFilter(){state.task=el('f-task').value;state.outcome=el('f-outcome').value;state.method=el('f-method').value;
  state.q=el('f-q').value;state.sort=el('f-sort').value;state.page=1;state.sample='';render();}
['f-task','f-outcome','f-method','f-sort'].forEach(function(id){el(id).addEventListener('change',onFilter);});
var timer;el('f-q').addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(onFilter,150);});
el('prev').addEventListener('click',function(){state.page-=1;state.sample='';render();});
el('next').addEventListener('click',function(){state.page+=1;state.sample='';render();});
el('rows').addEventListener('click',function(e){var tr=e.target.closest('tr.sample');if(!tr)return;
  state.sample=state.sample===tr.getAttribute('data-id')?'':tr.getAttribute('data-id');render();});
window.addEventListener('hashchange',function(){readHash();render();});
readHash();render();
document.body.setAttribute('data-render-ms',(performance.now()-t0).toFixed(1));
document.body.setAttribute('data-ready-ms',performance.now().toFixed(1));
document.body.setAttribute('data-ready','1');
})();
"""

BODY = """
<div class="bar">
<label>Task <select id="f-task"><option value="">all</option></select></label>
<label>Outcome <select id="f-outcome"><option value="">all</option></select></label>
<label>Refine <select id="f-method"><option value="">all</option></select></label>
<input type="search" id="f-q" placeholder="Search question, answers, errors…" aria-label="search">
<label>Sort <select id="f-sort"><option value="order">dataset order</option>
<option value="score-asc">score, lowest first</option><option value="score-desc">score, highest first</option>
<option value="latency">latency, slowest first</option><option value="tokens">tokens, most first</option></select></label>
<span class="pager"><button id="prev" type="button">‹ prev</button><button id="next" type="button">next ›</button></span>
<span id="status"></span>
</div>
<table><colgroup><col class="c-task"><col class="c-key"><col class="c-outcome"><col class="c-score">
<col class="c-method"><col class="c-question"><col class="c-answer"><col class="c-raw"><col class="c-latency">
</colgroup><thead><tr><th>Task</th><th>Key</th><th>Outcome</th><th>Score</th><th>Refine</th><th>Question</th>
<th>Ground truth</th><th>Raw answer</th><th>Latency (s)</th></tr></thead><tbody id="rows"></tbody></table>
"""
