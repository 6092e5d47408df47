package dev.collsim.scenarios.views;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * The teaching view in the HTML report, a lesson that opens at step 0: the ranks on a circle (the
 * NVSwitch in the middle where it reduces), the current transfer as an arrow coloured by whether the
 * receiver adds it (reduce) or keeps it (copy), and under each rank the sum of inputs its piece holds
 * ("r0+r2+r3"); play, pause, step, reset and a slider move through the transfers in time order, with
 * the schedule chart (each transfer a bar on its sender's row, axes fixed) and the table's row in step.
 * {@code #step=N} in the address opens it at step N.
 */
public final class ExplainHtml {
    private ExplainHtml() {}

    public static void add(HtmlReport report, Table table) {
        List<List<Object>> rows = table.rows();
        List<String> senders = new ArrayList<>();
        for (List<Object> r : rows) {
            if (!senders.contains((String) r.get(2))) {
                senders.add((String) r.get(2));
            }
        }
        senders.sort(null);
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.put("collsimGantt", true);
        o.putObject("title").put("text", "the schedule: each transfer from its start to its delivery, on its sender's row (us)").put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        o.putObject("grid").put("containLabel", true).put("left", 20).put("right", 30).put("top", 50);
        // Stable axes while the step-through adds transfers: the whole schedule's span from the start.
        double last = rows.stream().mapToDouble(r -> (Double) r.get(7)).max().orElse(0);
        o.putObject("xAxis").put("type", "value").put("name", "us").put("min", 0).put("max", Math.ceil(last));
        ArrayNode cats = o.putObject("yAxis").put("type", "category").put("name", "sender").putArray("data");
        senders.forEach(cats::add);
        ObjectNode s = o.putArray("series").addObject().put("type", "custom").put("name", "transfers");
        s.putObject("encode").putArray("x").add(1).add(2);
        s.withObject("/encode").put("y", 0);
        ArrayNode data = s.putArray("data");
        ArrayNode lesson = lessonRows(rows);
        for (int k = 0; k < rows.size(); k++) {
            List<Object> r = rows.get(k);
            ObjectNode item = data.addObject().put("name", lesson.get(k).get("caption").asText());
            item.putArray("value").add(senders.indexOf((String) r.get(2))).add((Double) r.get(6)).add((Double) r.get(7));
        }
        int index = report.chartCount();
        report.heading("Step through the schedule");
        table.preamble().stream().filter(n -> !n.isEmpty()).limit(1).forEach(report::text);
        String json;
        try {
            json = HtmlReport.json().writeValueAsString(lessonRows(rows));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        report.raw("<div><button id=\"play\">play</button> <button id=\"pause\">pause</button> <button id=\"step\">step</button>"
                + " <button id=\"reset\">reset</button> <input id=\"slider\" type=\"range\" min=\"0\" max=\"" + rows.size()
                + "\" value=\"0\" style=\"width:40%\"> <span id=\"caption\">step 0 of " + rows.size() + "</span></div>"
                + "<p class=\"note\"><span style=\"color:" + REDUCE + "\">&#9632; reduce</span> (the receiver adds what arrives to its"
                + " piece) &nbsp; <span style=\"color:" + COPY + "\">&#9632; copy</span> (the receiver keeps what arrives);"
                + " under each rank, the sum its piece of the current transfer holds</p>"
                + "<svg id=\"lesson\" width=\"640\" height=\"380\" role=\"img\" aria-label=\"the ranks and the current transfer\"></svg>"
                + "<div id=\"explain-selftest\" hidden></div>");
        report.chart(o, 120 + 40 * senders.size());
        report.raw("<div id=\"explain-table\">");
        report.table(table);
        report.raw("</div><script>" + SCRIPT.replace("INDEX", String.valueOf(index)).replace("ROWS", json)
                .replace("REDUCE", REDUCE).replace("COPY", COPY) + "</script>");
    }

    private static final String REDUCE = "#e8710a";
    private static final String COPY = "#1a73e8";

    /** Each transfer as the lesson reads it: sender, receiver, the piece of the buffer, what it does, whose inputs it carries, its caption. */
    private static ArrayNode lessonRows(List<List<Object>> rows) {
        ArrayNode out = HtmlReport.json().createArrayNode();
        for (List<Object> r : rows) {
            String label = "step " + r.get(0) + ", channel " + r.get(1) + ": " + r.get(2) + " -> " + r.get(3) + ", bytes " + r.get(4)
                    + ", " + r.get(8) + (r.get(9).toString().isEmpty() ? "" : ", carrying " + r.get(9));
            out.addObject().put("src", (String) r.get(2)).put("dst", (String) r.get(3)).put("piece", r.get(4).toString())
                    .put("action", r.get(8).toString()).put("carries", r.get(9).toString()).put("caption", label);
        }
        return out;
    }

    /**
     * The lesson's script: the ranks on a circle (a switch in the middle where the schedule reduces in
     * it), the current transfer as an arrow coloured by what it does, each rank's piece as the sum of
     * the inputs it holds, the schedule chart and the table's row in step. Opens at step 0; the
     * self-test element records the steps a click on "step" shows, for the browser test.
     */
    private static final String SCRIPT = """
            window.addEventListener('load',function(){
            var rows=ROWS,chart=window.collsimCharts[INDEX],all=chart?chart.getOption().series[0].data.slice():[];
            var ranks=[],sw=false;rows.forEach(function(r){[r.src,r.dst].forEach(function(n){if(n==='all'){sw=true;}
            else if(ranks.indexOf(n)<0){ranks.push(n);}});});
            ranks.sort(function(a,b){return parseInt(a.slice(1))-parseInt(b.slice(1));});
            var swName=rows.some(function(r){return r.action.indexOf('SHARP')>=0;})?'SHARP switch':'NVSwitch';
            var pairs=[],seenPair={};rows.forEach(function(r){if(r.src===r.dst){return;}var k=r.src+'>'+r.dst;
            if(!seenPair[k]){seenPair[k]=1;pairs.push([r.src,r.dst]);}});
            var pieces=[];rows.forEach(function(r){if(pieces.indexOf(r.piece)<0){pieces.push(r.piece);}});
            var svg=document.getElementById('lesson'),W=640,H=380,cx=W/2,cy=H/2,R=Math.min(150,100+4*ranks.length),pos={};
            ranks.forEach(function(n,i){var a=-Math.PI/2+2*Math.PI*i/ranks.length;pos[n]=[cx+R*Math.cos(a),cy+R*Math.sin(a)];});
            pos.all=[cx,cy];
            function el(t,at,txt){var e=document.createElementNS('http://www.w3.org/2000/svg',t);for(var k in at){e.setAttribute(k,at[k]);}
            if(txt!==undefined){e.textContent=txt;}svg.appendChild(e);return e;}
            function set(text){return text?text.split('+').filter(function(x){return x;}):[];}
            function sum(s){return s.slice().sort(function(a,b){return parseInt(a.slice(1))-parseInt(b.slice(1));}).join('+');}
            function state(k){var b={};ranks.forEach(function(n){b[n]={};pieces.forEach(function(p){b[n][p]=[n];});});
            for(var i=0;i<k;i++){var r=rows[i],c=set(r.carries);
            if(r.src==='all'||r.dst==='all'){ranks.forEach(function(n){b[n][r.piece]=c.slice();});}
            else if(r.src===r.dst){}
            else if(r.action.indexOf('reduce')>=0){c.forEach(function(x){if(b[r.dst][r.piece].indexOf(x)<0){b[r.dst][r.piece].push(x);}});}
            else{b[r.dst][r.piece]=c.slice();}}return b;}
            function arrow(a,z,color,width){var dx=z[0]-a[0],dy=z[1]-a[1],d=Math.max(1,Math.hypot(dx,dy)),s=26/d;
            el('line',{x1:a[0]+dx*s,y1:a[1]+dy*s,x2:z[0]-dx*s,y2:z[1]-dy*s,stroke:color,'stroke-width':width,'marker-end':'url(#head)'});}
            var shown=0,timer=null;
            function draw(k){while(svg.firstChild){svg.removeChild(svg.firstChild);}
            var defs=el('defs',{}),m=document.createElementNS('http://www.w3.org/2000/svg','marker');
            [['id','head'],['markerWidth','8'],['markerHeight','8'],['refX','6'],['refY','3'],['orient','auto']].forEach(function(p){m.setAttribute(p[0],p[1]);});
            var tip=document.createElementNS('http://www.w3.org/2000/svg','path');tip.setAttribute('d','M0,0 L6,3 L0,6 z');tip.setAttribute('fill','#444');
            m.appendChild(tip);defs.appendChild(m);
            var cur=k>0?rows[k-1]:null,b=state(k),piece=cur?cur.piece:pieces[0],done=0;
            pieces.forEach(function(p){if(ranks.every(function(n){return b[n][p].length===ranks.length;})){done++;}});
            // The algorithm's pattern: every pair that ever exchanges data, faint (the ring, the trees, PAT's distances).
            pairs.forEach(function(p){var a=pos[p[0]],z=pos[p[1]];el('line',{x1:a[0],y1:a[1],x2:z[0],y2:z[1],stroke:'#ddd','stroke-width':1});});
            if(sw){el('rect',{x:cx-50,y:cy-18,width:100,height:36,rx:6,fill:'#eee',stroke:'#888'});el('text',{x:cx,y:cy+5,'text-anchor':'middle','font-size':12},swName);}
            if(cur){var color=cur.action.indexOf('reduce')>=0?'REDUCE':'COPY';
            if(cur.src==='all'){ranks.forEach(function(n){arrow(pos[n],pos.all,color,2);arrow(pos.all,pos[n],'COPY',1);});}
            else if(cur.dst==='all'){arrow(pos[cur.src],pos.all,color,3);ranks.forEach(function(n){arrow(pos.all,pos[n],'COPY',1);});}
            else if(cur.src!==cur.dst){arrow(pos[cur.src],pos[cur.dst],color,3);}}
            ranks.forEach(function(n){var p=pos[n],active=cur&&(cur.src===n||cur.dst===n||cur.dst==='all');
            el('circle',{cx:p[0],cy:p[1],r:22,fill:active?'#fff3e0':'#fff',stroke:'#333','stroke-width':active?2:1});
            el('text',{x:p[0],y:p[1]+5,'text-anchor':'middle','font-size':13},n);
            el('text',{x:p[0],y:p[1]+38,'text-anchor':'middle','font-size':11,fill:'#333'},sum(b[n][piece]));});
            el('text',{x:8,y:H-8,'font-size':12,fill:'#555'},'piece '+piece+' shown under the ranks; pieces every rank holds whole: '+done+' of '+pieces.length);}
            function show(k){shown=Math.max(0,Math.min(rows.length,k));if(chart){chart.setOption({series:[{data:all.slice(0,shown)}]});}
            document.getElementById('slider').value=String(shown);
            document.getElementById('caption').textContent='step '+shown+' of '+rows.length+(shown===0?': press step or play':': '+rows[shown-1].caption);
            var trs=document.querySelectorAll('#explain-table tr');for(var i=1;i<trs.length;i++){trs[i].style.background=i===shown?'#fff3c4':'';}
            if(shown>0&&trs[shown]&&trs[shown].scrollIntoView){}
            draw(shown);}
            document.getElementById('step').onclick=function(){show(shown>=rows.length?1:shown+1);};
            document.getElementById('reset').onclick=function(){if(timer){clearInterval(timer);timer=null;}show(0);};
            document.getElementById('pause').onclick=function(){if(timer){clearInterval(timer);timer=null;}};
            document.getElementById('play').onclick=function(){if(timer){return;}if(shown>=rows.length){show(0);}
            timer=setInterval(function(){if(shown>=rows.length){clearInterval(timer);timer=null;return;}show(shown+1);},600);};
            document.getElementById('slider').oninput=function(e){show(parseInt(e.target.value));};
            show(0);var seen=[shown];var step=document.getElementById('step');step.click();seen.push(shown);step.click();seen.push(shown);
            document.getElementById('reset').click();seen.push(shown);
            document.getElementById('explain-selftest').setAttribute('data-steps',seen.join(','));
            var at=/step=(\\d+)/.exec(location.hash);if(at){show(parseInt(at[1]));}
            });""";
}